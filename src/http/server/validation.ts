/**
 * Request validation: one Ajv per part of the request, because bodies and paths need opposite rules.
 * Paths and query strings arrive as text and must be coerced ("7" -> 7); JSON bodies already carry types,
 * and coercing them would let `"text": 123` through as "123", so bodies are type-checked strictly.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifySchema, FastifySchemaCompiler, preValidationHookHandler } from 'fastify';
import { nulRefused, pathOfNul } from '../../wire/nul-text.js';

const shared = { allErrors: false, allowUnionTypes: true, useDefaults: true, strict: false } as const;

// removeAdditional 'all' drops fields a schema does not list, so unknown fields are ignored, never passed on.
const bodyAjv = new Ajv({ ...shared, coerceTypes: false, removeAdditional: 'all' });
const textAjv = new Ajv({ ...shared, coerceTypes: true, removeAdditional: 'all' });

/** Fastify validator compiler that picks the Ajv for the part being validated. */
export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ValidateFunction;
};

const partNames: Record<string, string> = { body: 'body', params: 'path', querystring: 'query', headers: 'header' };

/** Turns the first Ajv error into a message that names the field, e.g. `body field "phone" must be string`. */
export const formatValidationErrors = (errors: ErrorObject[], dataVar: string): Error => {
  const part = partNames[dataVar] ?? dataVar;
  const first = errors[0];
  const error = new Error(first === undefined ? `Invalid ${part}` : describe(first, part));
  return error;
};

const describe = (error: ErrorObject, part: string): string => {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  if (error.keyword === 'required') {
    const missing = String((error.params as { missingProperty?: string }).missingProperty ?? '');
    const field = path === '' ? missing : `${path}.${missing}`;
    return `${part} field "${field}" is required`;
  }
  if (path === '') {
    return part === 'body' ? `body ${error.message ?? 'is invalid'}; send a JSON object` : `${part} ${error.message}`;
  }
  return `${part} field "${path}" ${error.message ?? 'is invalid'}`;
};

/**
 * Path parameters and query values with a NUL character (`%00`) are refused before the route runs, naming
 * the parameter; text in JSON bodies is checked by the body parser (strict-json.ts).
 */
export const refuseNulInUrl: preValidationHookHandler = (request, _reply, done) => {
  for (const [part, values] of [['path parameter', request.params], ['query parameter', request.query]] as const) {
    const at = pathOfNul(values);
    if (at !== undefined) return done(nulRefused(`${part} "${at}"`));
  }
  done();
};
