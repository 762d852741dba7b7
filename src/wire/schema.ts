/**
 * The few schema builders the wire shapes need beyond TypeBox's own. Each wire shape is one TypeBox schema,
 * and its TypeScript type is `Static<typeof Schema>`: the routes validate, serialise and document with the
 * schema, the engine and the clients use the type, so the two cannot drift (ARCHITECTURE.md, one type source).
 *
 * The builders write the JSON Schema the API has always published: a nullable field is `type: [T, "null"]`
 * (fast-json-stringify writes null for it rather than coercing it), an enum is `{type: "string", enum}`,
 * a map is `additionalProperties`, not TypeBox's `anyOf` / `const` / `patternProperties` forms.
 */
import Type, { type Static, type TSchema, type TUnsafe } from 'typebox';

export { Type, type Static, type TSchema, type TUnsafe };

/** `T | null`, written as `type: [T, "null"]`. */
export const Nullable = <T extends TSchema>(schema: T) => {
  const { type, ...rest } = schema as unknown as { type: string };
  return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'] });
};

/** One of `values`, written as `{type: "string", enum: values}`. */
export const StringEnum = <const V extends readonly string[]>(values: V, options: Record<string, unknown> = {}) =>
  Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options });

/** Always `true` (`deleted: true`, a sample's `test: true`), written as `{type: "boolean", enum: [true]}`. */
export const TrueFlag = (options: Record<string, unknown> = {}) => Type.Unsafe<true>({ type: 'boolean', enum: [true], ...options });

/** A name -> string map (reactions: emoji -> count), written as `additionalProperties`. */
export const StringMap = (options: Record<string, unknown> = {}) =>
  Type.Unsafe<Record<string, string>>({ type: 'object', additionalProperties: { type: 'string' }, ...options });

/** An ISO 8601 time. */
export const DateTime = (options: Record<string, unknown> = {}) => Type.String({ format: 'date-time', ...options });
