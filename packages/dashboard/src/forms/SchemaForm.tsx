import type { JsonSchema } from '../api/types';

/*
 * A form generated from a model's `parameters` (the JSON Schema of the run body it accepts): only the
 * fields the model takes, with its limits shown. Values are kept as strings/booleans by dotted path and
 * turned into the run body by `bodyFrom`.
 */

export type FormValues = Record<string, string | boolean>;

const SAFE = 9_007_199_254_740_991;
const LABELS: Record<string, string> = {
  prompt: 'Prompt',
  callback_url: 'Callback URL',
  aspect_ratio: 'Aspect ratio',
  duration: 'Duration (seconds)',
  resolution: 'Resolution',
  image_urls: 'Reference image URLs',
  video_urls: 'Reference video URLs',
  enable_translation: 'Translate the prompt to English first',
  watermark: 'Watermark text',
  multi_shots: 'Several shots',
  width: 'Width (pixels)',
  height: 'Height (pixels)',
  negative_prompt: 'Negative prompt (what to leave out)',
  seed: 'Seed',
  n: 'Number of images',
  temperature: 'Temperature',
  max_tokens: 'Maximum output tokens',
  top_p: 'Top p',
  system: 'System instruction',
};
const SECTION: Record<string, string> = {
  video_params: 'Video parameters',
  image_params: 'Image parameters',
  llm_params: 'Chat parameters',
  provider_params: 'Provider parameters',
};
/** Fields of the body the playground does not offer (generation_type is implied by the model). */
const HIDDEN = new Set(['generation_type']);

const typeOf = (s: JsonSchema): string | undefined => (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type);
const labelFor = (name: string): string => LABELS[name] ?? name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
const idFor = (path: string): string => `param-${path.replace(/\./g, '-')}`;

function limits(s: JsonSchema): string | null {
  const min = s.minimum ?? s.exclusiveMinimum;
  const max = s.maximum ?? s.exclusiveMaximum;
  const parts: string[] = [];
  if (min !== undefined && Math.abs(min) < SAFE && max !== undefined && Math.abs(max) < SAFE) parts.push(`${min} to ${max}`);
  else if (min !== undefined && Math.abs(min) < SAFE) parts.push(`at least ${min}`);
  else if (max !== undefined && Math.abs(max) < SAFE) parts.push(`at most ${max}`);
  if (s.multipleOf !== undefined && s.multipleOf > 1) parts.push(`a multiple of ${s.multipleOf}`);
  if (s.maxItems !== undefined) parts.push(`at most ${s.maxItems}, one per line`);
  if (s.maxLength !== undefined) parts.push(`at most ${s.maxLength} characters`);
  return parts.length ? parts.join(', ') : null;
}

function Field({ name, path, schema, values, onChange, required }: { name: string; path: string; schema: JsonSchema; values: FormValues; onChange: (v: FormValues) => void; required: boolean }) {
  const id = idFor(path);
  const set = (v: string | boolean) => onChange({ ...values, [path]: v });
  const hint = limits(schema);
  const describedBy = hint || schema.description ? `${id}-hint` : undefined;
  const t = typeOf(schema);
  const label = (
    <label htmlFor={id}>
      {labelFor(name)}
      {required ? ' (required)' : ''}
    </label>
  );
  const hintEl = describedBy ? (
    <small id={describedBy}>
      {[schema.description, hint].filter(Boolean).join(' · ')}
    </small>
  ) : null;
  if (schema.enum) {
    return (
      <div className="field">
        {label}
        <select id={id} value={String(values[path] ?? '')} onChange={(e) => set(e.target.value)} aria-describedby={describedBy}>
          <option value="">{schema.default !== undefined ? `default (${String(schema.default)})` : 'model default'}</option>
          {schema.enum.map((v) => (
            <option key={String(v)} value={String(v)}>
              {String(v)}
            </option>
          ))}
        </select>
        {hintEl}
      </div>
    );
  }
  if (t === 'boolean') {
    return (
      <div className="field">
        <label htmlFor={id}>
          <input id={id} type="checkbox" role="switch" checked={values[path] === true} onChange={(e) => set(e.target.checked)} aria-describedby={describedBy} />
          {labelFor(name)}
        </label>
        {hintEl}
      </div>
    );
  }
  if (t === 'number' || t === 'integer') {
    const min = schema.minimum !== undefined && Math.abs(schema.minimum) < SAFE ? schema.minimum : undefined;
    const max = schema.maximum !== undefined && Math.abs(schema.maximum) < SAFE ? schema.maximum : undefined;
    return (
      <div className="field">
        {label}
        <input
          id={id}
          type="number"
          inputMode={t === 'integer' ? 'numeric' : 'decimal'}
          min={min}
          max={max}
          step={t === 'integer' ? (schema.multipleOf ?? 1) : 'any'}
          value={String(values[path] ?? '')}
          onChange={(e) => set(e.target.value)}
          placeholder={schema.default !== undefined ? `default ${String(schema.default)}` : 'model default'}
          aria-describedby={describedBy}
        />
        {hintEl}
      </div>
    );
  }
  if (t === 'array') {
    return (
      <div className="field">
        {label}
        <textarea id={id} rows={2} value={String(values[path] ?? '')} onChange={(e) => set(e.target.value)} aria-describedby={describedBy} placeholder="https://…" />
        {hintEl}
      </div>
    );
  }
  const long = name === 'prompt' || name === 'system' || name === 'negative_prompt';
  return (
    <div className="field">
      {label}
      {long ? (
        <textarea id={id} rows={name === 'prompt' ? 3 : 2} required={required} value={String(values[path] ?? '')} onChange={(e) => set(e.target.value)} aria-describedby={describedBy} />
      ) : (
        <input id={id} type={name.endsWith('_url') ? 'url' : 'text'} required={required} value={String(values[path] ?? '')} onChange={(e) => set(e.target.value)} aria-describedby={describedBy} />
      )}
      {hintEl}
    </div>
  );
}

function Fields({ schema, prefix, values, onChange, requiredNames }: { schema: JsonSchema; prefix: string; values: FormValues; onChange: (v: FormValues) => void; requiredNames: Set<string> }) {
  const props = Object.entries(schema.properties ?? {}).filter(([name, s]) => !HIDDEN.has(name) && s.const === undefined);
  return (
    <>
      {props.map(([name, s]) => {
        const path = prefix ? `${prefix}.${name}` : name;
        if (typeOf(s) === 'object' && s.properties) {
          if (Object.keys(s.properties).length === 0) return null;
          return (
            <fieldset key={path}>
              <legend>{SECTION[name] ?? labelFor(name)}</legend>
              <Fields schema={s} prefix={path} values={values} onChange={onChange} requiredNames={new Set(s.required ?? [])} />
            </fieldset>
          );
        }
        return <Field key={path} name={name} path={path} schema={s} values={values} onChange={onChange} required={requiredNames.has(name)} />;
      })}
    </>
  );
}

export function SchemaForm({ schema, values, onChange, promptRequired }: { schema: JsonSchema; values: FormValues; onChange: (v: FormValues) => void; promptRequired: boolean }) {
  const required = new Set(schema.required ?? []);
  if (promptRequired) required.add('prompt');
  return <Fields schema={schema} prefix="" values={values} onChange={onChange} requiredNames={required} />;
}

function schemaAt(schema: JsonSchema, path: string[]): JsonSchema | undefined {
  let s: JsonSchema | undefined = schema;
  for (const p of path) s = s?.properties?.[p];
  return s;
}

/** The run body from the form: empty fields left out, numbers as numbers, lists split by line. */
export function bodyFrom(schema: JsonSchema, values: FormValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [path, raw] of Object.entries(values)) {
    const parts = path.split('.');
    const s = schemaAt(schema, parts);
    if (!s) continue;
    const t = typeOf(s);
    let value: unknown;
    if (t === 'boolean') {
      if (raw !== true) continue;
      value = true;
    } else {
      const text = String(raw);
      if (text.trim() === '') continue;
      if (t === 'number' || t === 'integer') value = Number(text);
      else if (t === 'array') value = text.split(/\s+/).filter(Boolean);
      else if (s.enum && s.enum.every((v) => typeof v === 'number')) value = Number(text);
      else value = text;
    }
    let target = body;
    for (const p of parts.slice(0, -1)) {
      target[p] ??= {};
      target = target[p] as Record<string, unknown>;
    }
    target[parts[parts.length - 1] as string] = value;
  }
  return body;
}
