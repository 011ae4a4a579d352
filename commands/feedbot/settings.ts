/**
 * /feedbot settings — one private admin panel (Manage Server) for what /feedbot's groups and
 * /apikey set one by one. Every change applies on selection through the same functions as the
 * slash subcommands (audit-channel.ts, managers.ts, health.ts, src/api-key/), is audited as
 * they are, and redraws the panel in place (callback type 7). A refusal is answered privately
 * apart and leaves the panel as it was.
 */
import type { AnySelectMenuInteraction, ButtonInteraction, ModalSubmitInteraction } from 'discord.js';
import { button, channelSelect, modal, roleSelect, stringSelect, type ComponentRoute, type SlashDeclaration } from '../../src/interactions/command.js';
import { MANAGES_KEY, MANAGES_SETTINGS } from '../../src/interactions/preconditions.js';
import type { HandlerContext } from '../../src/interactions/context.js';
import { customId, int, oneOf, snowflake } from '../../src/interactions/custom-id.js';
import { ExpiredComponentError } from '../../src/interactions/errors.js';
import { keyModal } from '../../src/api-key/render.js';
import { DEFAULT_STALE_AFTER_DAYS, MAX_STALE_AFTER_DAYS } from '../../src/settings/schema.js';
import { keyStatus, removeGuildKey } from '../../src/api-key/operations.js';
import { KEY_INPUT_ID, storeKeyFromModal } from '../../src/interactions/key-prompt.js';
import { confirmationExpiry } from '../../src/interactions/confirmations.js';
import { CHANNEL_TYPES, applyAuditChannel, turnAuditOff } from './audit-channel.js';
import { setStaleThreshold } from '../../src/health/health-command.js';
import { replaceManagerRoles } from './managers.js';
import { panelEmbed, panelRows, removeKeyQuestion, type PanelIds, type PanelState } from './settings-panel.js';

const FOR = { userId: snowflake };
const settingsIds = {
  audit: customId('feedbot:set-audit', FOR),
  roles: customId('feedbot:set-roles', FOR),
  threshold: customId('feedbot:set-days', FOR),
  auditOff: customId('feedbot:set-audit-off', FOR),
  setKey: customId('feedbot:set-key', FOR),
  keyForm: customId('feedbot:set-key-form', FOR),
  removeKey: customId('feedbot:set-unkey', FOR),
  /** `expires`: Unix seconds; the question is refused after it. */
  removeKeyAnswer: customId('feedbot:set-unkey-answer', { answer: oneOf(['yes', 'no']), userId: snowflake, expires: int({ min: 1 }) }),
};

async function panelState(ctx: HandlerContext): Promise<PanelState> {
  const [settings, key] = await Promise.all([ctx.services.settings.get(ctx.guildId()), keyStatus(ctx.services, ctx.guildId())]);
  return { key, auditChannelId: settings.auditChannelId, managerRoleIds: settings.managerRoleIds, staleAfterDays: settings.staleAfterDays ?? DEFAULT_STALE_AFTER_DAYS };
}

function idsFor(userId: string): PanelIds {
  const state = { userId };
  return {
    audit: settingsIds.audit.encode(state),
    roles: settingsIds.roles.encode(state),
    threshold: settingsIds.threshold.encode(state),
    auditOff: settingsIds.auditOff.encode(state),
    setKey: settingsIds.setKey.encode(state),
    removeKey: settingsIds.removeKey.encode(state),
  };
}

/** The panel as it is now (after a change: `notice` says what changed). */
async function showPanel(ctx: HandlerContext, userId: string, notice?: string): Promise<void> {
  const state = await panelState(ctx);
  await ctx.respond.send({ embeds: [panelEmbed(ctx.t, state, notice)], components: panelRows(ctx.t, state, idsFor(userId)), allowedMentions: { parse: [] } });
}

export const subcommand: SlashDeclaration = {
  ...MANAGES_SETTINGS,
  ephemeral: true,
  run: (interaction, ctx) => showPanel(ctx, interaction.user.id),
};

const inPlace = { answer: 'update', ephemeral: true, invokerOnly: true } as const;

const auditSelect = channelSelect({
  ...MANAGES_SETTINGS,
  ...inPlace,
  id: settingsIds.audit,
  async run(interaction, ctx, { userId }) {
    const channel = interaction.channels.first();
    if (!channel || !(CHANNEL_TYPES as readonly number[]).includes(channel.type)) throw new ExpiredComponentError();
    await applyAuditChannel(ctx, interaction.client, channel.id, interaction.locale);
    await showPanel(ctx, userId, ctx.t('forms.settings.done.audit', { channel: channel.id }));
  },
});

const rolesSelect = roleSelect({
  ...MANAGES_SETTINGS,
  ...inPlace,
  id: settingsIds.roles,
  async run(interaction, ctx, { userId }) {
    const roles = await replaceManagerRoles(
      ctx,
      interaction.roles.map((role) => ({ id: role.id, managed: role.managed })),
    );
    await showPanel(ctx, userId, ctx.t('forms.settings.done.managers', { count: roles.length }));
  },
});

const thresholdSelect = stringSelect({
  ...MANAGES_SETTINGS,
  ...inPlace,
  id: settingsIds.threshold,
  async run(interaction, ctx, { userId }) {
    const days = int({ min: 1, max: MAX_STALE_AFTER_DAYS }).read(interaction.values[0] ?? '')?.value;
    // Only values this panel offered read back; anything else is a component of another version.
    if (days === undefined) throw new ExpiredComponentError();
    await setStaleThreshold(ctx, days);
    await showPanel(ctx, userId, ctx.t('forms.settings.done.threshold', { days }));
  },
});

const auditOffButton = button({
  ...MANAGES_SETTINGS,
  ...inPlace,
  id: settingsIds.auditOff,
  async run(_interaction, ctx, { userId }) {
    await turnAuditOff(ctx);
    await showPanel(ctx, userId, ctx.t('forms.settings.done.auditOff'));
  },
});

/** Opens /apikey set's form, under the panel's id so that its submit redraws the panel. */
const setKeyButton = button({
  ...MANAGES_KEY,
  id: settingsIds.setKey,
  answer: 'modal',
  ephemeral: true,
  invokerOnly: true,
  run: (_interaction, ctx, { userId }) => ctx.respond.showModal(keyModal(ctx.t, { modal: settingsIds.keyForm.encode({ userId }), input: KEY_INPUT_ID })),
});

const keyForm = modal({
  ...MANAGES_KEY,
  ...inPlace,
  id: settingsIds.keyForm,
  async run(interaction: ModalSubmitInteraction, ctx, { userId }) {
    const saved = await storeKeyFromModal(interaction, ctx);
    await showPanel(ctx, userId, ctx.t('forms.settings.done.keySet', { masked: saved.masked }));
  },
});

/** Asks first, in place of the panel: Remove / Cancel, valid for the confirmations' time. */
const removeKeyButton = button({
  ...MANAGES_KEY,
  ...inPlace,
  id: settingsIds.removeKey,
  async run(_interaction, ctx, { userId }) {
    const key = await keyStatus(ctx.services, ctx.guildId());
    if (!key) return showPanel(ctx, userId);
    const { expires } = confirmationExpiry(ctx);
    const state = { userId, expires: Math.ceil(expires.getTime() / 1000) };
    await ctx.respond.send(
      removeKeyQuestion(ctx.t, key.masked, expires, {
        yes: settingsIds.removeKeyAnswer.encode({ answer: 'yes', ...state }),
        no: settingsIds.removeKeyAnswer.encode({ answer: 'no', ...state }),
      }),
    );
  },
});

const removeKeyAnswer = button({
  ...MANAGES_KEY,
  ...inPlace,
  id: settingsIds.removeKeyAnswer,
  async run(interaction, ctx, { answer, userId, expires }) {
    if (ctx.now() > expires * 1000) return showPanel(ctx, userId, ctx.t('forms.settings.expired'));
    if (answer === 'no') return showPanel(ctx, userId, ctx.t('forms.settings.done.keyKept'));
    const removed = await removeGuildKey(ctx.services, ctx.guildId(), ctx.actor(), interaction.locale);
    await showPanel(ctx, userId, removed ? ctx.t('forms.settings.done.keyRemoved') : undefined);
  },
});

export const settingsComponents: {
  selects: ComponentRoute<AnySelectMenuInteraction>[];
  buttons: ComponentRoute<ButtonInteraction>[];
  modals: ComponentRoute<ModalSubmitInteraction>[];
} = {
  selects: [auditSelect, rolesSelect, thresholdSelect],
  buttons: [auditOffButton, setKeyButton, removeKeyButton, removeKeyAnswer],
  modals: [keyForm],
};
