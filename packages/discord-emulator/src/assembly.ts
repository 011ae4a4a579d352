/**
 * Builds the emulator's parts over shared state and wires them together: what DiscordEmulator's
 * constructor does, kept apart so that emulator.ts reads as the public API.
 */
import type { Server } from 'node:http';
import type { APIUser } from 'discord-api-types/v10';
import { AttachmentStore } from './attachments.js';
import { CommandStore } from './commands.js';
import { createControlHandler } from './control.js';
import type { DiscordEmulator } from './emulator.js';
import { Gateway } from './gateway/gateway.js';
import { IdentifyLimiter } from './gateway/identify-limit.js';
import { GuildChanges } from './guild-changes.js';
import { GuildMembership } from './guild-membership.js';
import { GuildDirectory } from './guild-directory.js';
import { makeUser } from './guilds.js';
import { HttpDelivery } from './http-delivery/http-delivery.js';
import { InteractionSigner } from './http-delivery/signer.js';
import { InteractionSender } from './interaction-sender.js';
import { InteractionRegistry } from './interactions/registry.js';
import { silentLogger, type Logger } from './log.js';
import { MessageStore } from './messages.js';
import type { EmulatorOptions, ParsedOptions } from './options.js';
import { RequestGuard } from './request-guard.js';
import { RestEndpoint } from './rest-endpoint.js';
import { createRestRouter } from './rest.js';
import { createEmulatorServer } from './server.js';

/** The application's owner, as `GET /applications/@me` shows it; PINGs come from them. */
const OWNER = makeUser('100000000000000001', 'emulator-owner');

export interface EmulatorParts {
  logger: Logger;
  botUser: APIUser;
  guard: RequestGuard;
  guildDirectory: GuildDirectory;
  messageStore: MessageStore;
  attachments: AttachmentStore;
  guildChanges: GuildChanges;
  /** Whether the bot is in each guild (removed and added back by the control API). */
  membership: GuildMembership;
  commandStore: CommandStore;
  registry: InteractionRegistry;
  limiter: IdentifyLimiter;
  gateway: Gateway;
  rest: RestEndpoint;
  signer: InteractionSigner;
  delivery: HttpDelivery;
  sender: InteractionSender;
  server: Server;
}

export function assembleEmulator(options: EmulatorOptions, parsed: ParsedOptions, emulator: DiscordEmulator): EmulatorParts {
  const { events } = emulator;
  const guard = new RequestGuard(parsed.corsOrigin);
  const logger = options.logger ?? silentLogger();
  const applicationId = parsed.applicationId;
  const botUser = makeUser(applicationId, parsed.botUsername, { bot: true, global_name: null });
  const guilds = new GuildDirectory(options.guilds);
  const attachments = new AttachmentStore(() => `${emulator.controlUrl}/attachments`);
  const messages = new MessageStore(attachments);
  const commands = new CommandStore(applicationId);
  // Parts record violations through the REST endpoint, built last: bound late.
  const late: { rest?: RestEndpoint } = {};
  const violation: RestEndpoint['recordViolation'] = (v) => late.rest!.recordViolation(v);
  const registry = new InteractionRegistry({ ackDeadlineMs: parsed.ackDeadlineMs, tokenLifetimeMs: parsed.tokenLifetimeMs, messages, events, violation });
  const limiter = new IdentifyLimiter({
    maxConcurrency: parsed.maxConcurrency,
    windowMs: parsed.identifyWindowMs,
    total: parsed.sessionStartLimit,
    periodMs: parsed.sessionStartPeriodMs,
  });
  // The bot's membership of each guild; the gateway is bound late (it reads the membership too).
  const membership: GuildMembership = new GuildMembership({
    guilds,
    gateway: { dispatchGuildEvent: (guildId: string, t: string, d: unknown, intent: number | null): number[] => gateway.dispatchGuildEvent(guildId, t, d, intent) },
    botUser,
  });
  const gateway: Gateway = new Gateway({
    botToken: parsed.botToken,
    applicationId,
    applicationFlags: 0,
    botUser,
    guildsOfShard: (shardId, shardCount) => guilds.ofShard(shardId, shardCount).filter((g) => membership.has(g.id)),
    heartbeatIntervalMs: parsed.heartbeatIntervalMs,
    maxGuildsPerShard: parsed.maxGuildsPerShard,
    allowedPrivilegedIntents: parsed.allowedPrivilegedIntents,
    limiter,
    violation,
    resumeUrl: () => emulator.gatewayUrl,
    events,
    logger,
  });
  const guildChanges = new GuildChanges({ guilds, gateway, messages, events, botUser });
  const responses = { applicationId, botUser, registry, messages, events };
  const signer = new InteractionSigner(options.interactionsPrivateKey);
  const delivery = new HttpDelivery({
    applicationId,
    owner: OWNER,
    signer,
    ca: options.endpointCa,
    checkTimeoutMs: parsed.ackDeadlineMs,
    registry,
    responses,
    events,
    logger,
    maxRecords: parsed.maxRecordedCalls,
    recordViolation: violation,
    recordRejection: (result, where) => late.rest!.recordRejection(result, where),
  });
  const router = createRestRouter({
    applicationId,
    applicationName: parsed.applicationName,
    applicationFlags: 0,
    botUser,
    owner: OWNER,
    // A guild the bot was removed from answers 10004 (its channels 10003), as Discord does.
    guild: (id) => membership.guild(id),
    channel: (id) => {
      const found = guilds.channel(id);
      return found && membership.has(found.guild.id) ? found : undefined;
    },
    botGuilds: (query) => membership.botGuilds(query),
    guildCount: () => guilds.list.length,
    commands,
    responses,
    messages,
    events,
    gatewayUrl: () => emulator.gatewayUrl,
    recommendedShards: () => emulator.recommendedShards(),
    sessionStartLimit: () => limiter.sessionStartLimit(),
    interactions: { publicKey: signer.publicKey, endpointUrl: () => delivery.url, setEndpoint: (url) => delivery.setEndpoint(url) },
  });
  const rest = (late.rest = new RestEndpoint({ router, guard, botToken: parsed.botToken, maxRecordedCalls: parsed.maxRecordedCalls, registry, events, logger }));
  const sender = new InteractionSender({
    applicationId,
    botUser,
    defaultUserId: parsed.defaultUserId,
    guilds,
    commands,
    registry,
    messages,
    attachments,
    gateway,
    delivery,
    logger,
    host: emulator,
  });
  const server = createEmulatorServer({ guard, rest, control: createControlHandler(emulator, guard), gateway, logger, faults: emulator.restFaults });
  return {
    logger,
    botUser,
    guard,
    guildDirectory: guilds,
    messageStore: messages,
    attachments,
    guildChanges,
    membership,
    commandStore: commands,
    registry,
    limiter,
    gateway,
    rest,
    signer,
    delivery,
    sender,
    server,
  };
}
