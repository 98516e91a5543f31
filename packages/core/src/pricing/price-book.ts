import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import type { ModelDescriptor } from '../model/model.js';
import type { NormalizedRequest } from '../model/normalized-request.js';
import { markupFor, NO_MARKUP, type MarkupPolicy } from './markup.js';
import { toPricingView, type PricingView } from './pricing-view.js';
import { chargeForUsage, quoteRun, type PriceQuote, type ProducedUsage } from './quote.js';

/** Prices with the operator's markup applied: what is quoted and held, what is charged, what is shown. */
@injectable()
export class PriceBook {
  constructor(@inject(TOKENS.Markup) private readonly markup: MarkupPolicy = NO_MARKUP) {}

  markupBp(model: ModelDescriptor): number {
    return markupFor(this.markup, model);
  }

  quote(model: ModelDescriptor, req: NormalizedRequest): PriceQuote {
    return quoteRun(model, req, this.markupBp(model));
  }

  charge(model: ModelDescriptor, req: NormalizedRequest, held: PriceQuote, usage: ProducedUsage): PriceQuote {
    return chargeForUsage(model, req, held, usage, this.markupBp(model));
  }

  view(model: ModelDescriptor): PricingView {
    return toPricingView(model, this.markupBp(model));
  }
}
