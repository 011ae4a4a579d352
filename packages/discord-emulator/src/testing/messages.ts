/** The message Discord returns for a webhook call, without an emulator behind it. */
import type { APIMessage } from 'discord-api-types/v10';
import { makeUser } from '../guilds.js';
import { messageObject } from '../messages.js';

export interface FakeMessageOptions {
  /** The bot: author and webhook of the message. */
  applicationId: string;
  channelId: string;
  flags?: number;
  username?: string;
}

/** The message a webhook call (reply, follow-up, edit) carrying `body` creates. */
export function fakeMessage(body: Record<string, unknown> | undefined, opts: FakeMessageOptions): APIMessage {
  return messageObject({
    channelId: opts.channelId,
    guildId: null,
    author: makeUser(opts.applicationId, opts.username ?? 'bot', { bot: true }),
    applicationId: opts.applicationId,
    type: 0,
    flags: opts.flags ?? 0,
    data: body ?? {},
    attachments: [],
  });
}
