/** /apikey: the private form for the key, and what is shown about a stored key (never the key). */
import {
  LabelBuilder,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
  TimestampStyles,
  time,
  type APIEmbed,
  type APIEmbedField,
} from 'discord.js';
import { API_KEY_LENGTH, SCOPES, type Scope } from '@feedbot/feed-api-contract';
import type { Translator } from '../i18n/index.js';
import type { StoredKey } from '../keys/schema.js';
import { Colors } from '../render/style.js';

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
            // The contract's lengths; the command checks the whole rule (ApiKeySchema) on submit.
            .setMinLength(API_KEY_LENGTH.min)
            .setMaxLength(API_KEY_LENGTH.max),
        ),
    );
}

/** true: the key has the scope; false: it has not; null: it could not be checked. */
export type ScopeCheck = Record<Scope, boolean | null>;

export function scopeLines(t: Translator, scopes: ScopeCheck): string {
  return SCOPES.map((scope) => {
    const known = scopes[scope];
    return t(known === true ? 'apikey.scope.yes' : known === false ? 'apikey.scope.no' : 'apikey.scope.unknown', { scope });
  }).join('\n');
}

/** Whether the key was tied to this server when it was set; unverified says what to do about it. */
export type KeyOwnership = NonNullable<StoredKey['ownership']>;

function ownershipField(t: Translator, ownership: KeyOwnership): APIEmbedField {
  return { name: t('apikey.ownership'), value: t(`apikey.ownership.${ownership}`) };
}

/** After /apikey set: the masked key, its scopes (with a hint when one is missing) and its ownership. */
export function keySavedEmbed(t: Translator, masked: string, scopes: ScopeCheck, ownership: KeyOwnership): APIEmbed {
  const missing = SCOPES.some((s) => scopes[s] !== true);
  return {
    title: t('apikey.set.title'),
    color: ownership === 'verified' ? Colors.success : Colors.warning,
    description: t('apikey.set.description', { masked: `\`${masked}\`` }),
    fields: [
      { name: t('apikey.scopes'), value: scopeLines(t, scopes) + (missing ? `\n\n${t('apikey.set.missingScopes')}` : '') },
      ownershipField(t, ownership),
    ],
  };
}

export interface KeyStatus {
  masked: string;
  setBy: string;
  setAt: string;
  scopes: ScopeCheck;
  ownership: KeyOwnership;
}

export function keyStatusEmbed(t: Translator, key: KeyStatus): APIEmbed {
  return {
    title: t('apikey.status.title'),
    color: key.ownership === 'verified' ? Colors.brand : Colors.warning,
    fields: [
      { name: t('apikey.status.key'), value: `\`${key.masked}\``, inline: true },
      { name: t('apikey.status.setBy'), value: `<@${key.setBy}>`, inline: true },
      { name: t('apikey.status.setAt'), value: time(new Date(key.setAt), TimestampStyles.ShortDateTime), inline: true },
      { name: t('apikey.scopes'), value: scopeLines(t, key.scopes) },
      ownershipField(t, key.ownership),
    ],
  };
}
