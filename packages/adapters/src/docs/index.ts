export { builtInCatalogAdapters } from './catalog-adapters.js';
export { renderProvidersTable, withGeneratedTable, usd, GENERATED_START, GENERATED_END } from './providers-table.js';
