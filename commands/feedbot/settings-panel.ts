/**
 * /feedbot settings' panel: one embed with the server's settings (the key's state, masked; the
 * audit channel; the feed-manager roles; the health threshold) and under it four rows: a channel
 * select (audit channel), a role select (feed-manager roles), a string select (threshold) and the
 * buttons Turn audit off, Set key, Remove key. Every select shows the current value as its default.
 */
import { ButtonStyle, ComponentType, TimestampStyles, roleMention, time, type APIEmbed } from 'discord.js';
import type { Translator } from '../../src/i18n/index.js';
import { scopeLines, type KeyStatus } from '../../src/api-key/render.js';
import type { MessageRow } from '../../src/render/pager.js';
import { Colors, Limits } from '../../src/render/style.js';
import { truncate } from '../../src/render/text.js';
import { MAX_MANAGER_ROLES } from '../../src/settings/schema.js';

/** The threshold's choices, in days; the current value is added when it was set to another with the slash command. */
const THRESHOLD_CHOICES = [1, 3, 7, 14, 30, 60, 90, 180, 365] as const;

export interface PanelState {
  key: KeyStatus | undefined;
  auditChannelId: string | undefined;
  managerRoleIds: readonly string[];
  staleAfterDays: number;
}

/** The custom_ids of the panel's components, for the invoking admin. */
export interface PanelIds {
  audit: string;
  roles: string;
  threshold: string;
  auditOff: string;
  setKey: string;
  removeKey: string;
}

export function panelEmbed(t: Translator, state: PanelState, notice?: string): APIEmbed {
  const key = state.key
    ? `${t('forms.settings.key.value', { masked: state.key.masked, setBy: `<@${state.key.setBy}>`, setAt: time(new Date(state.key.setAt), TimestampStyles.RelativeTime) })}\n${scopeLines(t, state.key.scopes)}`
    : t('forms.settings.key.none');
  const roles = state.managerRoleIds.length ? state.managerRoleIds.map((id) => roleMention(id)).join(' ') : t('forms.settings.managers.none');
  return {
    title: t('forms.settings.title'),
    color: Colors.brand,
    description: [notice, t('forms.settings.description')].filter(Boolean).join('\n\n'),
    fields: [
      { name: t('forms.settings.key'), value: truncate(key, Limits.fieldValue) },
      { name: t('forms.settings.audit'), value: state.auditChannelId ? `<#${state.auditChannelId}>` : t('forms.settings.audit.off'), inline: true },
      { name: t('forms.settings.threshold'), value: t('forms.settings.threshold.value', { days: state.staleAfterDays }), inline: true },
      { name: t('forms.settings.managers'), value: truncate(roles, Limits.fieldValue) },
    ],
  };
}

export function panelRows(t: Translator, state: PanelState, ids: PanelIds): MessageRow[] {
  const days = [...new Set<number>([...THRESHOLD_CHOICES, state.staleAfterDays])].sort((a, b) => a - b);
  return [
    {
      type: ComponentType.ActionRow,
      components: [
        {
          type: ComponentType.ChannelSelect,
          custom_id: ids.audit,
          placeholder: t('forms.settings.audit.placeholder'),
          channel_types: [0, 5],
          min_values: 1,
          max_values: 1,
          ...(state.auditChannelId ? { default_values: [{ type: 'channel' as never, id: state.auditChannelId }] } : {}),
        },
      ],
    },
    {
      type: ComponentType.ActionRow,
      components: [
        {
          type: ComponentType.RoleSelect,
          custom_id: ids.roles,
          placeholder: t('forms.settings.managers.placeholder'),
          // None chosen is a choice: no feed-manager role.
          min_values: 0,
          max_values: MAX_MANAGER_ROLES,
          ...(state.managerRoleIds.length ? { default_values: state.managerRoleIds.map((id) => ({ type: 'role' as never, id })) } : {}),
        },
      ],
    },
    {
      type: ComponentType.ActionRow,
      components: [
        {
          type: ComponentType.StringSelect,
          custom_id: ids.threshold,
          min_values: 1,
          max_values: 1,
          options: days.map((d) => ({ label: t('forms.settings.threshold.option', { days: d }), value: String(d), default: d === state.staleAfterDays })),
        },
      ],
    },
    {
      type: ComponentType.ActionRow,
      components: [
        { type: ComponentType.Button, custom_id: ids.auditOff, label: t('forms.settings.button.auditOff'), style: ButtonStyle.Secondary, disabled: !state.auditChannelId },
        { type: ComponentType.Button, custom_id: ids.setKey, label: t('forms.settings.button.setKey'), style: ButtonStyle.Primary },
        { type: ComponentType.Button, custom_id: ids.removeKey, label: t('forms.settings.button.removeKey'), style: ButtonStyle.Danger, disabled: !state.key },
      ],
    },
  ];
}

/** Remove key's question, in place of the panel: Remove / Cancel. */
export function removeKeyQuestion(t: Translator, masked: string, expires: Date, ids: { yes: string; no: string }): { embeds: APIEmbed[]; components: MessageRow[] } {
  return {
    embeds: [{ title: t('forms.settings.button.removeKey'), color: Colors.warning, description: t('forms.settings.removeKey.confirm', { masked, expires: time(expires, TimestampStyles.RelativeTime) }) }],
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          { type: ComponentType.Button, custom_id: ids.yes, label: t('forms.settings.removeKey.yes'), style: ButtonStyle.Danger },
          { type: ComponentType.Button, custom_id: ids.no, label: t('delete.button.cancel'), style: ButtonStyle.Secondary },
        ],
      },
    ],
  };
}
