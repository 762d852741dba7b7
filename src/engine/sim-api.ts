import { SimDriver } from '../network/sim-driver.js';
import { isInternationalPhone } from '../network/driver.js';
import type { SimApi } from './engine-api.js';
import { accountOfWorkspace, connectAccount } from './accounts.js';
import { assertAdmitted, type EngineContext } from './context.js';
import type { BatchAdmission } from '../store/sql-database.js';
import { conflict, invalid, SvcError } from '../wire/errors.js';
import { messageOfWorkspace } from './messages.js';

/**
 * Controls of the simulated network, scoped to one workspace. `admission`: what a received message's write
 * checks again (the caller's token, when it was let in from memory).
 */
export function createSimApi(ctx: EngineContext, workspaceId: number, admission?: BatchAdmission): SimApi {
  const driver = () => {
    if (!(ctx.network instanceof SimDriver)) {
      throw new SvcError('not_found', 'The simulated network is not in use on this instance');
    }
    return ctx.network;
  };
  const status = async (phone: string) => {
    const account = await accountOfWorkspace(ctx, workspaceId, phone);
    return { phone: account.phone, status: account.status };
  };
  const change = async (phone: string, next: 'disconnected' | 'suspended' | 'resumed', allowedFrom: string[]) => {
    const account = await accountOfWorkspace(ctx, workspaceId, phone);
    if (!allowedFrom.includes(account.status)) throw conflict(`account ${phone} is ${account.status}`, 'check the account with `svc accounts list`');
    await driver().changeAccount(phone, next);
    return status(phone);
  };
  return {
    async connect(input) {
      driver();
      const account = await connectAccount(ctx, workspaceId, input);
      return { phone: account.phone, status: account.status };
    },
    async receive(input) {
      // The account is checked where the message is stored (`workspaceId`), in its group commit; when the request
      // is refused before, the account is checked first, so an unknown account is still what is reported.
      if (!(ctx.network instanceof SimDriver) || !isInternationalPhone(input.from)) {
        await assertAdmitted(ctx.sql, admission);
        await accountOfWorkspace(ctx, workspaceId, input.to);
        driver();
        throw invalid('from must be an international number, e.g. +4915112345678');
      }
      const { messageUid, chatId } = await ctx.network.receive({
        workspaceId,
        accountPhone: input.to,
        contactPhone: input.from,
        ...(input.contact_name === undefined ? {} : { contactName: input.contact_name }),
        ...(input.text === undefined ? {} : { text: input.text }),
        ...(input.file_uid === undefined ? {} : { attachmentFileUid: input.file_uid }),
        ...(input.reply_to === undefined ? {} : { replyToUid: input.reply_to }),
        ...(admission === undefined ? {} : { writeAdmission: admission }),
      });
      return { message_uid: messageUid, chat_id: chatId };
    },
    async react(input) {
      await messageOfWorkspace(ctx, workspaceId, input.message_uid);
      return { message_uid: input.message_uid, reactions: await driver().react(input.message_uid, input.emoji, input.from) };
    },
    disconnect: (phone) => change(phone, 'disconnected', ['connected', 'suspended']),
    suspend: (phone) => change(phone, 'suspended', ['connected']),
    resume: (phone) => change(phone, 'resumed', ['suspended']),
    async setUnreachable(phone, unreachable) {
      driver();
      if (typeof phone !== 'string' || phone.length === 0) throw invalid('phone is required');
      await ctx.stores.sim.setUnreachable(workspaceId, phone, unreachable);
      return { phone, unreachable };
    },
  };
}
