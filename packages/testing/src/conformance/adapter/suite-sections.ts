/** The sections of the adapter conformance suite, by name (an adapter may skip some: `skip`). */
export type AdapterSuiteSection = 'calls' | 'abort' | 'resume' | 'cancel' | 'errors' | 'parameters' | 'price-source' | 'stream';
