/**
 * One type source (ARCHITECTURE.md): every wire shape a route answers with or reads is the schema exported
 * from src/wire, the same object its TypeScript type is derived from, never a hand-written copy beside it.
 * The routes are read as the server registers them, so a route added with an inline schema fails here.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server/build-server.js';
import * as listenTypes from '../../src/wire/listen-types.js';
import * as partnerTypes from '../../src/wire/partner-types.js';
import * as types from '../../src/wire/types.js';
import * as webhookEvents from '../../src/wire/webhook-events.js';
import * as webhookTypes from '../../src/wire/webhook-types.js';
import { testEngine } from '../support/test-engine.js';

type Schema = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && 'type' in value;
const WIRE = new Set<Schema>(
  [types, partnerTypes, webhookTypes, listenTypes, webhookEvents].flatMap((module) => Object.values(module).filter(isSchema)),
);
// Event-naming fields are narrowed to the area's events by src/http/schemas/webhook-schemas.ts.
const NARROWED = new Set(['event_type', 'events']);

/** The wire schema `body` is, or was narrowed from: every property the same object but the event-naming one. */
const wireSourceOf = (body: Schema): Schema | undefined =>
  WIRE.has(body)
    ? body
    : [...WIRE].find((wire) => {
        const names = Object.keys(wire.properties ?? {});
        if (names.length === 0 || names.join() !== Object.keys(body.properties ?? {}).join()) return false;
        return names.every((name) => NARROWED.has(name) || wire.properties[name] === body.properties[name]);
      });

/** The shape inside a `{status, data}` answer: a page's or a list's item, or the data itself. */
const dataShape = (envelope: Schema): Schema => {
  const data: Schema = envelope.properties.data;
  if (data.type === 'array') return data.items;
  if (data.properties?.has_more_pages !== undefined) return data.properties.items.items;
  return data;
};

interface Route {
  method: string | string[];
  url: string;
  schema?: Schema;
}

let app: FastifyInstance;
const routes: Route[] = [];
beforeAll(async () => {
  const { engine } = await testEngine();
  app = buildServer({ engine, rateLimitPerMinute: 0 });
  app.addHook('onRoute', (route) => void routes.push(route as Route));
  await app.ready();
});
afterAll(async () => app.close());

describe('one type source', () => {
  it('every JSON answer of the APIs holds a wire schema of src/wire', () => {
    const answers = routes.flatMap((route) =>
      Object.entries<Schema>(route.schema?.response ?? {})
        .filter(([status]) => /^2\d\d$/.test(status) && route.schema?.hide !== true)
        .map(([status, envelope]) => ({ route: `${String(route.method)} ${route.url} ${status}`, shape: dataShape(envelope) })),
    );
    expect(answers.length).toBeGreaterThan(60);
    expect(answers.filter(({ shape }) => !WIRE.has(shape)).map(({ route }) => route)).toEqual([]);
  });

  it('every JSON body a route reads is a wire schema, or one narrowed to the area\'s events', () => {
    const bodies = routes.filter((route) => isSchema(route.schema?.body));
    expect(bodies.length).toBeGreaterThan(20);
    const handWritten = bodies.filter((route) => {
      const body = route.schema!.body as Schema;
      // `POST .../qr` takes its body or null: the wire schema, made nullable.
      const nonNull = Array.isArray(body.type) ? [...WIRE].find((wire) => wire.properties === body.properties) : undefined;
      return nonNull === undefined && wireSourceOf(body) === undefined;
    });
    expect(handWritten.map((route) => `${String(route.method)} ${route.url}`)).toEqual([]);
  });

  it('tells a hand-written copy from the wire schema', () => {
    const copy = structuredClone(types.ChatUpdateInput) as Schema;
    expect(wireSourceOf(copy)).toBeUndefined();
    expect(WIRE.has(JSON.parse(JSON.stringify(types.ChatDto)) as Schema)).toBe(false);
  });
});
