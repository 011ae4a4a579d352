/** /apikey: the private form for the key, and what is shown about a stored key (never the key). */
import {
  LabelBuilder,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
  TimestampStyles,
  time,
  type APIEmbed,
} from 'discord.js';
import { SCOPES, type Scope } from '@feedbot/feed-api-contract';
import type { Translator } from '../i18n/index.js';
import { Colors } from './style.js';

/** Lengths the form accepts; the command checks the characters. */
export const KEY_LENGTH = { min: 8, max: 512 } as const;

export function keyModal(t: Translator, ids: { modal: string; input: string }): ModalBuilder {
  return new ModalBuilder()
    .setCustomId(ids.modal)
    .setTitle(t('apikey.modal.title'))
    .addLabelComponents(
      new LabelBuilder()
        .setLabel(t('apikey.modal.label'))
        .setDescription(t('apikey.modal.description'))
        .setTextInputComponent(
          new TextInputBuilder()
            .setCustomId(ids.input)
            .setStyle(TextInputStyle.Short)
            .setRequired(true)
            .setMinLength(KEY_LENGTH.min)
            .setMaxLength(KEY_LENGTH.max),
        ),
    );
}

/** true: the key has the scope; false: it has not; null: it could not be checked. */
export type ScopeCheck = Record<Scope, boolean | null>;

function scopeLines(t: Translator, scopes: ScopeCheck): string {
  return SCOPES.map((scope) => {
    const known = scopes[scope];
    return t(known === true ? 'apikey.scope.yes' : known === false ? 'apikey.scope.no' : 'apikey.scope.unknown', { scope });
  }).join('\n');
}

/** After /apikey set: the masked key and its scopes, with a hint when one is missing. */
export function keySavedEmbed(t: Translator, masked: string, scopes: ScopeCheck): APIEmbed {
  const missing = SCOPES.some((s) => scopes[s] !== true);
  return {
    title: t('apikey.set.title'),
    color: Colors.success,
    description: t('apikey.set.description', { masked: `\`${masked}\`` }),
    fields: [{ name: t('apikey.scopes'), value: scopeLines(t, scopes) + (missing ? `\n\n${t('apikey.set.missingScopes')}` : '') }],
  };
}

export function keyStatusEmbed(t: Translator, key: { masked: string; setBy: string; setAt: string; scopes: ScopeCheck }): APIEmbed {
  return {
    title: t('apikey.status.title'),
    color: Colors.brand,
    fields: [
      { name: t('apikey.status.key'), value: `\`${key.masked}\``, inline: true },
      { name: t('apikey.status.setBy'), value: `<@${key.setBy}>`, inline: true },
      { name: t('apikey.status.setAt'), value: time(new Date(key.setAt), TimestampStyles.ShortDateTime), inline: true },
      { name: t('apikey.scopes'), value: scopeLines(t, key.scopes) },
    ],
  };
}
