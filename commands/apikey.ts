/**
 * /apikey set | status | remove — the server's feed API key, for admins only.
 *
 * `set` opens a modal so the key never appears in a channel; the key is probed against the API
 * before it is stored (encrypted) and is never shown again beyond its last 4 characters.
 */
import {
  InteractionContextType,
  LabelBuilder,
  ModalBuilder,
  PermissionFlagsBits,
  SlashCommandBuilder,
  TextInputBuilder,
  TextInputStyle,
  TimestampStyles,
  time,
  type APIEmbed,
  type ChatInputCommandInteraction,
  type ModalSubmitInteraction,
} from 'discord.js';
import { SCOPES, type Scope } from '@feedbot/feed-api-contract';
import type { KeyProbe } from '../src/api/client.js';
import type { HandlerContext } from '../src/bot/context.js';
import { UserError } from '../src/bot/errors.js';
import { en } from '../src/i18n/en.js';
import { localizations, type Translator } from '../src/i18n/index.js';
import { maskKey } from '../src/keys/store.js';
import { Colors } from '../src/render/style.js';
import { noticeEmbed } from '../src/render/feeds.js';

export const MODAL_ID = 'apikey:set';
export const KEY_INPUT_ID = 'key';
/** Printable ASCII without spaces: what API keys are made of. */
const KEY_FORMAT = /^[\x21-\x7E]{8,512}$/;

export const data = new SlashCommandBuilder()
  .setName('apikey')
  .setNameLocalizations(localizations('cmd.apikey.name'))
  .setDescription(en['cmd.apikey.description'])
  .setDescriptionLocalizations(localizations('cmd.apikey.description'))
  .setContexts(InteractionContextType.Guild)
  .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
  .addSubcommand((s) =>
    s
      .setName('set')
      .setNameLocalizations(localizations('cmd.apikey.set.name'))
      .setDescription(en['cmd.apikey.set.description'])
      .setDescriptionLocalizations(localizations('cmd.apikey.set.description')),
  )
  .addSubcommand((s) =>
    s
      .setName('status')
      .setNameLocalizations(localizations('cmd.apikey.status.name'))
      .setDescription(en['cmd.apikey.status.description'])
      .setDescriptionLocalizations(localizations('cmd.apikey.status.description')),
  )
  .addSubcommand((s) =>
    s
      .setName('remove')
      .setNameLocalizations(localizations('cmd.apikey.remove.name'))
      .setDescription(en['cmd.apikey.remove.description'])
      .setDescriptionLocalizations(localizations('cmd.apikey.remove.description')),
  );

export function ephemeral(): boolean {
  return true;
}

export async function execute(interaction: ChatInputCommandInteraction, ctx: HandlerContext): Promise<void> {
  ctx.guildId();
  ctx.requireManageGuild('manageKey');
  switch (interaction.options.getSubcommand(true)) {
    case 'set':
      return ctx.respond.showModal(keyModal(ctx.t));
    case 'status':
      return status(ctx);
    case 'remove':
      return remove(ctx);
    default:
      throw new UserError('error.unknownCommand');
  }
}

export function keyModal(t: Translator): ModalBuilder {
  return new ModalBuilder()
    .setCustomId(MODAL_ID)
    .setTitle(t('apikey.modal.title'))
    .addLabelComponents(
      new LabelBuilder()
        .setLabel(t('apikey.modal.label'))
        .setDescription(t('apikey.modal.description'))
        .setTextInputComponent(
          new TextInputBuilder()
            .setCustomId(KEY_INPUT_ID)
            .setStyle(TextInputStyle.Short)
            .setRequired(true)
            .setMinLength(8)
            .setMaxLength(512),
        ),
    );
}

function scopeLines(t: Translator, scopes: Record<Scope, boolean | null>): string {
  return SCOPES.map((scope) => {
    const known = scopes[scope];
    return t(known === true ? 'apikey.scope.yes' : known === false ? 'apikey.scope.no' : 'apikey.scope.unknown', { scope });
  }).join('\n');
}

export async function modal(interaction: ModalSubmitInteraction, ctx: HandlerContext): Promise<void> {
  const guildId = ctx.guildId();
  ctx.requireManageGuild('manageKey');
  const apiKey = interaction.fields.getTextInputValue(KEY_INPUT_ID).trim();
  if (!KEY_FORMAT.test(apiKey)) throw new UserError('apikey.badFormat');

  // Probing takes up to three requests: acknowledge first so the deadline is never at risk.
  await ctx.respond.defer();
  const probe: KeyProbe = await ctx.services.api.probeKey(apiKey);
  if (!probe.valid) {
    ctx.upstreamStatus = 401;
    throw new UserError('apikey.invalid');
  }
  if (probe.planRequired && !SCOPES.some((s) => probe.scopes[s] === true)) {
    ctx.upstreamStatus = 403;
    throw new UserError('apikey.planRequired');
  }
  ctx.upstreamStatus = 200;
  const servidor = probe.stats?.servidor;
  if (servidor && /^\d{17,20}$/.test(servidor) && servidor !== guildId) {
    throw new UserError('apikey.otherServer', { servidor });
  }
  const previous = await ctx.services.keys.get(guildId).catch(() => undefined);
  await ctx.services.keys.set(guildId, {
    apiKey,
    setBy: interaction.user.id,
    setAt: new Date(ctx.now()).toISOString(),
    scopes: SCOPES.filter((s) => probe.scopes[s] === true),
    unknownScopes: SCOPES.filter((s) => probe.scopes[s] === null),
  });
  if (previous && previous.apiKey !== apiKey) ctx.services.api.forgetKey(previous.apiKey);
  const t = ctx.t;
  const missing = SCOPES.some((s) => probe.scopes[s] !== true);
  const embed: APIEmbed = {
    title: t('apikey.set.title'),
    color: Colors.success,
    description: t('apikey.set.description', { masked: `\`${maskKey(apiKey)}\`` }),
    fields: [{ name: t('apikey.scopes'), value: scopeLines(t, probe.scopes) + (missing ? `\n\n${t('apikey.set.missingScopes')}` : '') }],
  };
  await ctx.respond.send({ embeds: [embed] });
}

async function status(ctx: HandlerContext): Promise<void> {
  const stored = await ctx.services.keys.get(ctx.guildId());
  const t = ctx.t;
  if (!stored) {
    await ctx.respond.send({ embeds: [noticeEmbed(t('apikey.status.none'))] });
    return;
  }
  const scopes = Object.fromEntries(
    SCOPES.map((s) => [s, stored.scopes.includes(s) ? true : (stored.unknownScopes ?? []).includes(s) ? null : false]),
  ) as Record<Scope, boolean | null>;
  await ctx.respond.send({
    embeds: [
      {
        title: t('apikey.status.title'),
        color: Colors.brand,
        fields: [
          { name: t('apikey.status.key'), value: `\`${maskKey(stored.apiKey)}\``, inline: true },
          { name: t('apikey.status.setBy'), value: `<@${stored.setBy}>`, inline: true },
          { name: t('apikey.status.setAt'), value: time(new Date(stored.setAt), TimestampStyles.ShortDateTime), inline: true },
          { name: t('apikey.scopes'), value: scopeLines(t, scopes) },
        ],
      },
    ],
  });
}

async function remove(ctx: HandlerContext): Promise<void> {
  const guildId = ctx.guildId();
  const stored = await ctx.services.keys.get(guildId).catch(() => undefined);
  const removed = await ctx.services.keys.delete(guildId);
  if (stored) ctx.services.api.forgetKey(stored.apiKey);
  await ctx.respond.send({ embeds: [noticeEmbed(ctx.t(removed ? 'apikey.removed' : 'apikey.removed.none'))] });
}
