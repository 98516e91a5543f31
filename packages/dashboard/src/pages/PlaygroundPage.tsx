import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, ApiError, errorMessage } from '../api/client';
import type { Model, ModelDetail, Paged, Pricing, Quote, Task } from '../api/types';
import { ErrorBanner, formatCredits, formatUsd, StatusBadge, useInterval, useLoad } from '../components/common';
import { ResultView } from '../components/ResultView';
import { bodyFrom, SchemaForm, type FormValues } from '../forms/SchemaForm';

const CAPABILITY_LABELS: Record<string, string> = {
  durations: 'Durations (s)',
  resolutions: 'Resolutions',
  aspectRatios: 'Aspect ratios',
  maxReferenceImages: 'Reference images',
  maxReferenceVideos: 'Reference videos',
  maxImages: 'Images per request',
  maxOutputTokens: 'Max output tokens',
  defaultMaxTokens: 'Default max tokens',
  contextWindow: 'Context window',
  temperature: 'Temperature',
  sizes: 'Sizes',
  promptRequired: 'Prompt required',
  supportsNegativePrompt: 'Negative prompt',
  supportsSeed: 'Seed',
  supportsWatermark: 'Watermark',
  supportsMultiShots: 'Several shots',
  supportsTranslation: 'Prompt translation',
  supportsTopP: 'Top p',
  supportsSystem: 'System instruction',
  exclusiveTemperatureTopP: 'Temperature or top p, not both',
};

function show(v: unknown): string {
  if (Array.isArray(v)) return v.map(show).join(', ');
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (o['kind'] === 'range') return `${String(o['minSide'])}–${String(o['maxSide'])} px per side (default long side ${String(o['defaultLongSide'])})`;
    if (o['kind'] === 'fixed' && Array.isArray(o['options'])) return (o['options'] as { width: number; height: number }[]).map((s) => `${s.width}×${s.height}`).join(', ');
    if ('min' in o && 'max' in o) return `${String(o['min'])} to ${String(o['max'])}`;
    if ('width' in o && 'height' in o) return `${String(o['width'])}×${String(o['height'])}`;
    return JSON.stringify(v);
  }
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return v === null || v === undefined ? '—' : String(v);
}

function Capabilities({ model }: { model: ModelDetail }) {
  const entries = Object.entries(model.capabilities).filter(([k]) => k !== 'modality');
  return (
    <dl className="caps" data-testid="capabilities">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{CAPABILITY_LABELS[k] ?? k.replace(/([A-Z])/g, ' $1').toLowerCase().replace(/^./, (c) => c.toUpperCase())}</dt>
          <dd>{show(v)}</dd>
        </div>
      ))}
    </dl>
  );
}

function Prices({ pricing }: { pricing: Pricing | undefined }) {
  if (!pricing) return null;
  return (
    <div className="table-wrap">
      <table data-testid="prices">
        <caption>Prices (your price, after the gateway's markup)</caption>
        <thead>
          <tr>
            <th scope="col">Per</th>
            <th scope="col">Applies to</th>
            <th scope="col" className="num">Credits</th>
            <th scope="col" className="num">USD</th>
          </tr>
        </thead>
        <tbody>
          {pricing.prices.map((p, i) => (
            <tr key={i}>
              <td>{p.unit.replace(/_/g, ' ')}</td>
              <td>{[p.resolution, p.conditions ? Object.entries(p.conditions).map(([k, v]) => `${k} ${String(v)}`).join(', ') : null].filter(Boolean).join(' · ') || 'all'}</td>
              <td className="num">{formatCredits(p.credits)}</td>
              <td className="num">{formatUsd(p.usd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const STEPS = ['waiting', 'generating', 'success'] as const;

function TaskWatch({ taskId, model }: { taskId: string; model: ModelDetail }) {
  const [task, setTask] = useState<Task | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // Bring the task into view (and the keyboard focus to it) as soon as it is submitted.
  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView({ block: 'start' });
  }, []);
  const [error, setError] = useState<unknown>(null);
  const done = task?.status === 'success' || task?.status === 'fail';
  const poll = () => {
    api<Task>('GET', `/api/v1/run/tasks/${taskId}`).then(
      (t) => {
        setTask(t);
        setError(null);
      },
      (e: unknown) => setError(e),
    );
  };
  useEffect(poll, [taskId]); // eslint-disable-line react-hooks/exhaustive-deps
  useInterval(poll, Math.max(1, model.poll_interval_seconds) * 1000, !done);
  const status = task?.status ?? 'waiting';
  return (
    <section className="watch" aria-labelledby="watch-h" data-testid="task-watch" data-status={status}>
      <h2 id="watch-h" ref={heading} tabIndex={-1}>
        Task
      </h2>
      <p>
        <code>{taskId}</code> · <StatusBadge status={status} /> · <Link to="/tasks">all tasks</Link>
      </p>
      <ol className="steps" aria-label="Task states">
        {STEPS.map((s) => {
          const reached = status === 'fail' ? s === 'waiting' || (s === 'generating' && task !== null) : STEPS.indexOf(status as (typeof STEPS)[number]) >= STEPS.indexOf(s);
          return (
            <li key={s} className={reached ? 'reached' : ''} aria-current={status === s ? 'step' : undefined}>
              {s}
            </li>
          );
        })}
        {status === 'fail' && <li className="reached failed" aria-current="step">fail</li>}
      </ol>
      <div aria-live="polite">
        {status === 'generating' && (
          <p>
            Generating…{' '}
            {task?.progress !== undefined ? (
              <progress value={task.progress} max={1} aria-label="Progress reported by the provider" />
            ) : (
              <progress aria-label="Generating (the provider reports no progress)" />
            )}
          </p>
        )}
        {status === 'waiting' && <p>Waiting for a worker…</p>}
        {status === 'fail' && <div className="notice error" role="alert">{task?.error_message}</div>}
      </div>
      <ErrorBanner error={error} />
      {task && task.status === 'success' && <ResultView urls={task.result_urls} modality={model.modality} label={`Result of ${model.name}`} />}
    </section>
  );
}

export function PlaygroundPage() {
  const [params, setParams] = useSearchParams();
  const models = useLoad(() => api<Paged<Model>>('GET', '/api/v1/models?per_page=100'), []);
  const list = models.data?.data ?? [];
  const selected = params.get('model') ?? list.find((m) => m.is_active && m.is_popular)?.id ?? list.find((m) => m.is_active)?.id ?? '';
  const detail = useLoad(() => (selected ? api<ModelDetail>('GET', `/api/v1/models/${encodeURIComponent(selected)}`) : Promise.resolve(undefined)), [selected]);
  const pricing = useLoad(() => (selected ? api<Pricing>('GET', `/api/v1/models/${encodeURIComponent(selected)}/pricing`) : Promise.resolve(undefined)), [selected]);
  const [values, setValues] = useState<FormValues>({});
  const [quote, setQuote] = useState<{ quote: Quote | null; error: unknown; loading: boolean }>({ quote: null, error: null, loading: false });
  const [submitError, setSubmitError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [taskId, setTaskId] = useState<string | null>(null);
  const model = detail.data && detail.data.id === selected ? detail.data : undefined;

  // Keep the prompt across models; drop parameters the next model may not take.
  useEffect(() => {
    setValues((v): FormValues => {
      const prompt = v['prompt'];
      return prompt === undefined ? {} : { prompt };
    });
    setTaskId(null);
  }, [selected]);

  // The quoted price, validated exactly like the run (so a wrong value shows the API's message before submitting).
  useEffect(() => {
    if (!model || !model.is_active) return;
    let live = true;
    setQuote((q) => ({ ...q, loading: true }));
    const t = setTimeout(() => {
      api<Quote>('POST', `/api/v1/models/${encodeURIComponent(model.id)}/quote`, bodyFrom(model.parameters, values)).then(
        (q) => live && setQuote({ quote: q, error: null, loading: false }),
        (e: unknown) => live && setQuote({ quote: null, error: e, loading: false }),
      );
    }, 250);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [model, values]);

  const promptRequired = model?.capabilities.promptRequired === true;
  const promptMissing = promptRequired && String(values['prompt'] ?? '').trim() === '';
  return (
    <>
      <h1>Playground</h1>
      <ErrorBanner error={models.error ?? detail.error ?? pricing.error} />
      <label htmlFor="model-select">Model</label>
      <select id="model-select" value={selected} onChange={(e) => setParams({ model: e.target.value })}>
        {list.map((m) => (
          <option key={m.id} value={m.id} disabled={!m.is_active}>
            {m.name} — {m.modality}, {m.provider}
            {m.is_active ? '' : ' (not available)'}
          </option>
        ))}
      </select>
      {model && (
        <div className="grid-2">
          <section aria-labelledby="model-h">
            <h2 id="model-h">{model.name}</h2>
            <p>{model.description}</p>
            {model.inactive_reason && <div className="notice warning">{model.inactive_reason}</div>}
            <h3>What it accepts</h3>
            <Capabilities model={model} />
            <Prices pricing={pricing.data} />
          </section>
          <section aria-labelledby="run-h">
            <h2 id="run-h">Run it</h2>
            <form
              onSubmit={async (e) => {
                e.preventDefault();
                setBusy(true);
                setSubmitError(null);
                try {
                  const accepted = await api<{ task_id: string }>('POST', `/api/v1/run/${encodeURIComponent(model.id)}`, bodyFrom(model.parameters, values));
                  setTaskId(accepted.task_id);
                } catch (err) {
                  setSubmitError(err);
                } finally {
                  setBusy(false);
                }
              }}
            >
              <SchemaForm schema={model.parameters} values={values} onChange={setValues} promptRequired={promptRequired} />
              <div className="quote" aria-live="polite" data-testid="quote">
                {quote.loading && !quote.quote && <span aria-busy="true">Quoting…</span>}
                {quote.quote && (
                  <p>
                    This run holds <strong data-testid="quote-credits">{formatCredits(quote.quote.credits)} credits</strong> ({formatUsd(quote.quote.usd)}) at most; you have{' '}
                    {formatCredits(quote.quote.available_credits)} available.
                    {!quote.quote.sufficient && <strong className="neg"> Not enough credits: top up first.</strong>}
                  </p>
                )}
                {quote.error !== null && !(promptMissing && quote.error instanceof ApiError && quote.error.param === 'prompt') && (
                  <p className="neg">{errorMessage(quote.error)}</p>
                )}
              </div>
              <ErrorBanner error={submitError} />
              <button type="submit" aria-busy={busy} disabled={busy || !model.is_active}>
                Run {model.name}
              </button>
            </form>
            {taskId && <TaskWatch key={taskId} taskId={taskId} model={model} />}
          </section>
        </div>
      )}
    </>
  );
}
