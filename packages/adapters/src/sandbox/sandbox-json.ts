import type { JSONSchema7, JSONSchema7Definition } from '@ai-sdk/provider';

/**
 * A deterministic value that satisfies a JSON schema's common keywords (type, properties, required,
 * enum, const, items, minItems): what the offline sandbox answers for structured output and tool calls.
 * Strings take `text`, numbers their minimum or 1, booleans true.
 */
export function exampleFor(schema: JSONSchema7Definition | undefined, text: string): unknown {
  if (schema === undefined || typeof schema === 'boolean') return text;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.[0] !== undefined) return exampleFor(alternatives[0], text);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type ?? (schema.properties ? 'object' : 'string')) {
    case 'object':
      return objectFor(schema, text);
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => exampleFor(firstItem(schema), text));
    case 'integer':
      return Math.ceil(schema.minimum ?? 1);
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return text;
  }
}

function objectFor(schema: JSONSchema7, text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) out[name] = exampleFor(property, text);
  return out;
}

function firstItem(schema: JSONSchema7): JSONSchema7Definition | undefined {
  return Array.isArray(schema.items) ? schema.items[0] : schema.items;
}
