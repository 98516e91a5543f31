import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { ModelRegistry } from '../catalog/model-registry.js';
import { CREDITS_PER_USD } from '../model/pricing.js';
import { PriceBook } from '../pricing/price-book.js';
import type { BillingLedger } from '../ports/stores.js';
import { validateRunRequest } from '../run/normalize-request.js';
import { microToCredits } from '../util/money.js';
import type { AuthContext } from './auth-context.js';
import { refusePrivateInputs } from './submit-run.js';

/** POST /models/{model_id}/quote (gengate extension): what a run with this body would hold, and whether the caller can cover it. */
export interface RunQuoteView {
  model_id: string;
  /** Credits a run with this body holds at submission (the most it can be charged). */
  credits: number;
  /** The same in USD. */
  usd: number;
  currency: 'USD';
  /** The caller's balance minus what unfinished tasks hold. */
  available_credits: number;
  /** available_credits >= credits: a run would not be refused with 402. */
  sufficient: boolean;
}

/**
 * Validates a run body exactly as POST /run/{model_id} does (same errors, same order) and quotes it,
 * without holding anything or creating a task.
 */
@injectable()
export class QuoteRun {
  constructor(
    @inject(ModelRegistry) private readonly registry: ModelRegistry,
    @inject(PriceBook) private readonly prices: PriceBook,
    @inject(TOKENS.Ledger) private readonly ledger: BillingLedger,
    @inject(TOKENS.AllowPrivateInputs) private readonly allowPrivateInputs: boolean = false,
  ) {}

  async execute(auth: AuthContext, modelId: string, body: unknown): Promise<RunQuoteView> {
    const model = this.registry.requireRunnable(modelId);
    const { normalized } = validateRunRequest(model, body);
    if (!this.allowPrivateInputs) refusePrivateInputs(normalized);
    const quote = this.prices.quote(model, normalized);
    const balance = await this.ledger.getBalance(auth.userId);
    const availableMicro = balance.balanceMicro - balance.heldMicro;
    const credits = microToCredits(quote.chargeMicro);
    return {
      model_id: model.id,
      credits,
      usd: credits / CREDITS_PER_USD,
      currency: 'USD',
      available_credits: microToCredits(availableMicro),
      sufficient: availableMicro >= quote.chargeMicro,
    };
  }
}
