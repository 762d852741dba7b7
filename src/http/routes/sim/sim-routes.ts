/** `/sim/...`: controls of the simulated messenger network, authenticated with the workspace token. */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { SimConnectInput, SimReactInput, SimReceiveInput } from '../../../wire/types.js';
import type { SimScanInput } from '../../../wire/partner-types.js';
import type { SimApi } from '../../../engine/engine-api.js';
import { useBearerAuth, workspaceIdOf } from '../public/token-auth.js';
import { type RouteContext, ok } from '../../server/route-context.js';
import { responses } from '../../schemas/common-schemas.js';
import { simScanBody, simScanSchema } from '../../schemas/sim-scan-schemas.js';
import {
  simAccountSchema,
  simReactSchema,
  simReceiveSchema,
  simUnreachableSchema,
} from '../../schemas/dto-schemas.js';
import {
  type PhoneParams,
  phoneParams,
  simConnectBody,
  simReactBody,
  simReceiveBody,
  simUnreachableBody,
} from '../../schemas/input-schemas.js';

/** Mounted at `/sim`. */
export const simRoutes: FastifyPluginAsync<RouteContext> = async (app, ctx) => {
  useBearerAuth(app, ctx.engine);
  const sim = (request: FastifyRequest): SimApi => ctx.engine.sim(workspaceIdOf(request));

  app.post<{ Body: SimConnectInput }>(
    '/accounts/connect',
    { schema: { body: simConnectBody, response: responses(simAccountSchema) } },
    async (request) => ok(await sim(request).connect(request.body)),
  );

  app.post<{ Body: SimReceiveInput }>(
    '/messages',
    { schema: { body: simReceiveBody, response: responses(simReceiveSchema) } },
    async (request) => ok(await sim(request).receive(request.body)),
  );

  app.post<{ Body: SimReactInput }>(
    '/reactions',
    { schema: { body: simReactBody, response: responses(simReactSchema) } },
    async (request) => ok(await sim(request).react(request.body)),
  );

  for (const action of ['disconnect', 'suspend', 'resume'] as const) {
    app.post<{ Params: PhoneParams }>(
      `/accounts/:phone/${action}`,
      { schema: { params: phoneParams, response: responses(simAccountSchema) } },
      async (request) => ok(await sim(request)[action](request.params.phone)),
    );
  }

  // The simulated phone scanning a partner QR link: the link (or the payload its page shows) is the
  // credential, as for a real phone, so no workspace token is asked for.
  app.post<{ Body: SimScanInput }>(
    '/scan',
    { schema: { body: simScanBody, response: responses(simScanSchema) }, config: { skipAuth: true } },
    async (request) => ok(await ctx.engine.connect.scan(request.body)),
  );

  app.put<{ Params: PhoneParams; Body: { unreachable: boolean } }>(
    '/numbers/:phone/unreachable',
    { schema: { params: phoneParams, body: simUnreachableBody, response: responses(simUnreachableSchema) } },
    async (request) => ok(await sim(request).setUnreachable(request.params.phone, request.body.unreachable)),
  );
};
