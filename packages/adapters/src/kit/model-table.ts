import { UpstreamError, type ModelDescriptor } from '@gengate/core/adapter';

/**
 * An adapter's models: the catalog entries (data) with whatever the adapter keeps beside each one (its
 * upstream endpoint, how it takes its size), looked up by catalog id. An unknown id is a `not_found` failure.
 */
export class ModelTable<M extends { readonly descriptor: ModelDescriptor }> {
  readonly descriptors: readonly ModelDescriptor[];
  private readonly byId: ReadonlyMap<string, M>;

  constructor(
    private readonly provider: string,
    models: readonly M[],
  ) {
    this.descriptors = models.map((m) => m.descriptor);
    this.byId = new Map(models.map((m) => [m.descriptor.id, m]));
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get(id: string): M {
    const m = this.byId.get(id);
    if (!m) throw new UpstreamError(`${this.provider} does not serve model ${id}`, { kind: 'not_found' });
    return m;
  }
}
