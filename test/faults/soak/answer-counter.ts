/**
 * Discord for the soak: takes over the client's `rest.makeRequest` and answers as Discord would
 * (callbacks and deletes 204, webhook calls the message they create), keeping only counts per
 * interaction token — the harness's RestRecorder keeps every call, which over an hour of traffic
 * would be the test's own leak. A settled interaction is checked and forgotten.
 */
import type { Client } from 'discord.js';
import { fakeMessage } from '@feedbot/discord-emulator/testing';
import { APP_ID, CHANNEL_ID } from '../../helpers/discord.js';

interface Tally {
  /** Acknowledgements: interaction callbacks of any type. */
  callbacks: number;
  /** The callback types, in order (4 reply, 5/6 deferral, 7 update, 8 choices, 9 modal). */
  types: number[];
  /** Edits of the original response and follow-ups. */
  webhooks: number;
  /** The custom_ids of the buttons in the latest answer (to press one next). */
  customIds: string[];
}

type Rows = { components?: { custom_id?: string }[] }[];

function customIdsOf(rows: Rows | undefined): string[] | undefined {
  return rows?.flatMap((row) => (row.components ?? []).flatMap((c) => (c.custom_id ? [c.custom_id] : [])));
}

type MakeRequest = NonNullable<Client['rest']['options']['makeRequest']>;
type ResponseLike = Awaited<ReturnType<MakeRequest>>;

export class AnswerCounter {
  private readonly byToken = new Map<string, Tally>();

  constructor(client: Client) {
    client.rest.options.makeRequest = async (url, init) => {
      const path = new URL(url).pathname.replace(/^\/api\/v\d+/, '');
      const parts = path.split('/');
      // A guild's channel list (channel names, when discord.js's cache does not hold the guild,
      // as in this harness that never logs in): no channels, and nothing to count.
      if (parts[1] === 'guilds') return Response.json([]) as unknown as ResponseLike;
      // A chosen channel looked up (whose it is, before /feed create): a text channel, with no
      // guild named, which the bot lets through; not an answer, so nothing to count.
      if (parts[1] === 'channels' && (init.method ?? 'GET') === 'GET') return Response.json({ id: parts[2], type: 0 }) as unknown as ResponseLike;
      const isCallback = parts[1] === 'interactions';
      const token = parts[3]!; // /interactions/{id}/{token}/callback, /webhooks/{app}/{token}/…
      const tally = this.tallyOf(token);
      const body = typeof init.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : undefined;
      if (isCallback) {
        tally.callbacks += 1;
        tally.types.push(Number(body?.type));
        tally.customIds = customIdsOf((body?.data as { components?: Rows } | undefined)?.components) ?? tally.customIds;
        return new Response(null, { status: 204 }) as unknown as ResponseLike;
      }
      tally.webhooks += 1;
      tally.customIds = customIdsOf((body as { components?: Rows } | undefined)?.components) ?? tally.customIds;
      if (init.method === 'DELETE') return new Response(null, { status: 204 }) as unknown as ResponseLike;
      const flags = typeof body?.flags === 'number' ? body.flags : 0;
      return Response.json(fakeMessage(body, { applicationId: APP_ID, channelId: CHANNEL_ID, flags })) as unknown as ResponseLike;
    };
  }

  /**
   * Whether the interaction with this token got exactly one answer: one acknowledgement, and
   * after a deferral (5, 6) the edit that carries the answer. Forgets the token.
   */
  settle(token: string): { ok: boolean; tally: Tally } {
    const tally = this.tallyOf(token);
    this.byToken.delete(token);
    const deferred = tally.types[0] === 5 || tally.types[0] === 6;
    const ok = tally.callbacks === 1 && (deferred ? tally.webhooks >= 1 : true);
    return { ok, tally };
  }

  /** Tokens seen but not settled (should be none between batches). */
  get open(): number {
    return this.byToken.size;
  }

  private tallyOf(token: string): Tally {
    let tally = this.byToken.get(token);
    if (!tally) this.byToken.set(token, (tally = { callbacks: 0, types: [], webhooks: 0, customIds: [] }));
    return tally;
  }
}
