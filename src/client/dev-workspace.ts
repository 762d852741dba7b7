import type { Engine } from '../engine/engine-api.js';
import { isSvcError, SvcError } from '../wire/errors.js';

/** The workspace `svc dev` serves, with what a developer needs to use it. */
export interface DevWorkspace {
  id: number;
  name: string;
  /** Its Public API token, which `svc dev` prints to paste into another shell. */
  token: string;
  /** The connected simulated account that sends. */
  account: string;
}

/**
 * Makes sure there is a workspace with a connected simulated account: the workspace of `token` when one is
 * given, else the Local workspace (created on first use with a token and an account, as any local command
 * does). A workspace without a connected account gets one. What it creates stays in the data directory, so
 * the token printed today still works tomorrow.
 */
export async function prepareDevWorkspace(engine: Engine, token: string | undefined): Promise<DevWorkspace> {
  const { id, token: workspaceToken } = await workspaceOf(engine, token);
  const api = engine.workspace(id);
  const connected = (await api.listAccounts(1)).items.filter((account) => account.status === 'connected');
  let account = (connected.find((a) => a.is_default_sender) ?? connected[0])?.phone;
  if (account === undefined) {
    account = `+1555010${String(id % 10_000).padStart(4, '0')}`;
    await engine.sim(id).connect({ phone: account, full_name: 'Dev sender' });
  }
  return { id, name: (await api.getWorkspace()).name, token: workspaceToken, account };
}

async function workspaceOf(engine: Engine, token: string | undefined): Promise<{ id: number; token: string }> {
  if (token !== undefined && token !== '') {
    const id = await engine.authenticate(token);
    if (id === null) {
      throw new SvcError('unauthorized', 'The API token was refused by the local engine', {
        hint: 'pass the token of a workspace in this data directory, or leave --token out to use the Local workspace',
      });
    }
    return { id, token };
  }
  try {
    const local = await engine.ensureLocalWorkspace();
    return { id: local.workspace_id, token: local.token };
  } catch (error) {
    if (!isSvcError(error) || error.code !== 'permission_denied') throw error;
    throw new SvcError('permission_denied', error.message, {
      hint: 'pass --token T of the workspace to serve (`svc admin workspace create` prints one), or --data with another directory',
      cause: error,
    });
  }
}
