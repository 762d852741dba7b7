/** `/sim/...`: controls of the simulated messenger network, authenticated with the workspace token. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import {
  SimAccountResult,
  SimConnectInput,
  SimReactInput,
  SimReactResult,
  SimReceiveInput,
  SimReceiveResult,
  SimUnreachableInput,
  SimUnreachableResult,
} from '../../../wire/types.js';
import { SimScanInput, SimScanResult } from '../../../wire/partner-types.js';
import type { SimApi } from '../../../engine/engine-api.js';
import { useBearerAuth, workspaceIdOf } from '../public/token-auth.js';
import { type RouteContext, ok } from '../../server/route-context.js';
import { phoneParams, responses } from '../../schemas/common-schemas.js';

/** Mounted at `/sim`. */
export const simRoutes: FastifyPluginAsyncTypebox<RouteContext> = async (app, ctx) => {
  useBearerAuth(app, ctx.engine);
  const sim = (request: FastifyRequest): SimApi =>
    ctx.engine.sim(workspaceIdOf(request), request.checkedToken === null ? {} : { token: request.checkedToken });

  app.post(
    '/accounts/connect',
    { schema: { body: SimConnectInput, response: responses(SimAccountResult) } },
    async (request) => ok(await sim(request).connect(request.body)),
  );

  app.post(
    '/messages',
    // The message's write checks the token again: it may be let in from memory (token-auth.ts).
    { schema: { body: SimReceiveInput, response: responses(SimReceiveResult) }, config: { tokenCheckedInWrite: true } },
    async (request) => ok(await sim(request).receive(request.body)),
  );

  app.post(
    '/reactions',
    { schema: { body: SimReactInput, response: responses(SimReactResult) } },
    async (request) => ok(await sim(request).react(request.body)),
  );

  for (const action of ['disconnect', 'suspend', 'resume'] as const) {
    app.post(
      `/accounts/:phone/${action}`,
      { schema: { params: phoneParams, response: responses(SimAccountResult) } },
      async (request) => ok(await sim(request)[action](request.params.phone)),
    );
  }

  // The simulated phone scanning a partner QR link: the link (or the payload its page shows) is the
  // credential, as for a real phone, so no workspace token is asked for.
  app.post(
    '/scan',
    { schema: { body: SimScanInput, response: responses(SimScanResult) }, config: { skipAuth: true } },
    async (request) => ok(await ctx.engine.connect.scan(request.body)),
  );

  app.put(
    '/numbers/:phone/unreachable',
    { schema: { params: phoneParams, body: SimUnreachableInput, response: responses(SimUnreachableResult) } },
    async (request) => ok(await sim(request).setUnreachable(request.params.phone, request.body.unreachable)),
  );
};
