/**
 * Posts audit events (events.ts) to the guild's audit channel, one embed each, through Discord's
 * REST API (the same call over the gateway and in HTTP-interactions mode).
 *
 * record() queues and returns at once: the command that caused the event never waits for the
 * post, and its failure never reaches that command. Each guild's events go out in the order they
 * were recorded; those that pile up while a post is on its way (an import, a bulk delete) leave
 * together, up to 10 embeds a message, so Discord's per-channel rate limit is not spent one embed
 * at a time. A post that fails (channel deleted, permissions removed) is logged once at warn with
 * a reference, and kept in the guild's settings (`auditFailure`) for `/feedbot audit-channel
 * status` to report once. When Discord refuses the channel itself (post-failure.ts
 * isPermanentFailure), the events queued behind are dropped with it, counted in that warn line:
 * one failure costs one request, not one per event. The next event recorded once the queue is
 * empty tries again, as an admin may have fixed the channel meanwhile. An event recorded before the
 * audit posts were turned on (`auditSince`) is not posted: it happened while nobody had asked.
 */
import { GuildFeature, Routes, type Client } from 'discord.js';
import { newReference } from '../reference.js';
import { langFor, translator } from '../i18n/index.js';
import type { Logger } from '../logger.js';
import { auditEmbed } from './render.js';
import { packPages } from '../render/pager.js';
import { Limits } from '../render/style.js';
import { embedLength } from '../render/text.js';
import type { GuildSettingsStore } from '../settings/store.js';
import type { AuditEvent, AuditTrail } from './events.js';
import { failureDetail, failureReason, isPermanentFailure } from './post-failure.js';

interface AuditTrailDeps {
  client: Client;
  settings: GuildSettingsStore;
  logger: Logger;
  now?: () => number;
}

interface Queued {
  event: AuditEvent;
  locale: string | undefined;
  /** When it was recorded: the embed's timestamp. */
  at: number;
}

export function createAuditTrail(deps: AuditTrailDeps): AuditTrail {
  const { client, settings, logger } = deps;
  const now = deps.now ?? Date.now;
  /** Per guild, the events not posted yet, oldest first; a guild is here while its worker runs. */
  const queues = new Map<string, Queued[]>();
  const workers = new Map<string, Promise<void>>();

  /** Posts the oldest events that fit one message; returns how many it took off the queue. */
  async function postNext(guildId: string, queue: readonly Queued[]): Promise<number> {
    const { auditChannelId: channelId, auditLocale, auditSince = 0 } = await settings.get(guildId);
    if (!channelId) return queue.length;
    const before = queue.findIndex((q) => q.at >= auditSince);
    if (before !== 0) return before === -1 ? queue.length : before;
    const embeds = queue
      .slice(0, Limits.embedsPerMessage)
      .map(({ event, locale, at }) => auditEmbed(translator(langFor(postLocale(client, guildId, auditLocale ?? locale))), event, new Date(at)));
    const batch = packPages(embeds, Limits.embedsPerMessage, Limits.charsPerMessage, embedLength)[0] ?? [];
    const kinds = queue.slice(0, batch.length).map((q) => q.event.kind);
    try {
      // Mentions name people and roles without pinging them.
      await client.rest.post(Routes.channelMessages(channelId), { body: { embeds: batch, allowed_mentions: { parse: [] } } });
    } catch (error) {
      const ref = newReference();
      const reason = failureReason(error);
      // Kept only while that channel is still the audit channel: a change since makes it moot.
      await settings
        .update(guildId, (current) =>
          current.auditChannelId === channelId ? { ...current, auditFailure: { at: now(), reason, channelId, reported: false, ref } } : current,
        )
        .catch((err: unknown) => logger.warn({ guildId, ref, err }, 'audit post failure not kept for status'));
      // Counted after the write above, with nothing awaited until the queue is cut: every event
      // still queued then is either posted later or counted here.
      const taken = isPermanentFailure(error) ? queue.length : batch.length;
      const dropped = taken - batch.length;
      logger.warn({ guildId, channelId, kinds, reason, ...failureDetail(error), ...(dropped > 0 ? { dropped } : {}), ref }, 'audit post failed');
      return taken;
    }
    return batch.length;
  }

  async function work(guildId: string, queue: Queued[]): Promise<void> {
    for (;;) {
      if (queue.length === 0) {
        // Decided in the same turn as record() checks it: an event recorded now starts a new worker.
        queues.delete(guildId);
        workers.delete(guildId);
        return;
      }
      let taken: number;
      try {
        taken = await postNext(guildId, queue);
      } catch (error) {
        // The settings could not be read: where to post is unknown, and nothing could keep the failure for status.
        taken = queue.length;
        logger.warn({ guildId, kinds: queue.map((q) => q.event.kind), err: error }, 'audit posts not attempted');
      }
      queue.splice(0, Math.max(1, taken));
    }
  }

  return {
    record(guildId, event, locale) {
      const queued = { event, locale, at: now() };
      const queue = queues.get(guildId);
      if (queue) {
        queue.push(queued);
        return;
      }
      const fresh = [queued];
      queues.set(guildId, fresh);
      workers.set(guildId, work(guildId, fresh));
    },
    async flush(guildId) {
      if (guildId !== undefined) {
        // One guild's posts only (/feedbot forget waits for its last post before deleting the settings it reads).
        for (let worker = workers.get(guildId); worker; worker = workers.get(guildId)) await worker.catch(() => undefined);
        return;
      }
      while (workers.size > 0) await Promise.allSettled([...workers.values()]);
    },
  };
}

/**
 * The guild's language when it chose one (only a Community server can: the others all read
 * en-US), else `locale`: the language of the admin who chose the audit channel, or of whoever
 * caused the event (records from before that was kept), so one channel speaks one language.
 */
function postLocale(client: Client, guildId: string, locale: string | undefined): string | undefined {
  const guild = client.guilds.cache.get(guildId);
  if (guild?.features.includes(GuildFeature.Community)) return guild.preferredLocale;
  return locale ?? guild?.preferredLocale;
}
