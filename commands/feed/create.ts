/**
 * /feed create [cuenta] [canal] [tipos] — forward a social account into a channel (Manage
 * Server or a feed-manager role). With all three options it creates at once, as it always did.
 * With none, or only some, it opens a form (a modal of Labels: the account as a text input, the
 * channel as a channel select, the kinds as a checkbox group), prefilled with what was given: a
 * user who typed part of the command expects to finish it, not to be told off. The form's submit
 * checks the permission again and goes through the same validation and answer.
 */
import { requireGuildChannel } from '../../src/interactions/chosen.js';
import {
  ChannelType,
  ComponentType,
  TextInputStyle,
  type APIModalInteractionResponseCallbackData,
  type ChatInputCommandInteraction,
  type Interaction,
  type ModalSubmitInteraction,
  type SlashCommandSubcommandBuilder,
} from 'discord.js';
import { CONTENT_KINDS, type ContentKind } from '@feedbot/feed-api-contract';
import { modal, type ComponentRoute, type SlashDeclaration } from '../../src/interactions/command.js';
import type { HandlerContext } from '../../src/interactions/context.js';
import { customId } from '../../src/interactions/custom-id.js';
import { MalformedInteractionError, UnconfirmedWriteError, UserError } from '../../src/interactions/errors.js';
import { KIND_COMBINATIONS, parseAccount, parseKinds } from '../../src/interactions/options.js';
import type { Translator } from '../../src/i18n/index.js';
import { localize, localizedChoice } from '../../src/i18n/localize.js';
import { createdFeedEmbed, type ShownFeed } from './render-feeds.js';
import { mayHaveDoneWork } from '../../src/api/errors.js';
import { feedIdentity } from '../../src/transfer/format.js';
import { kindLabel, kindsLabel } from '../../src/render/labels.js';

const CHANNEL_TYPES = [ChannelType.GuildText, ChannelType.GuildAnnouncement] as const;
const ACCOUNT_MAX = 200;

/** The form's id, and its fields' ids (custom_ids inside a modal need no command prefix). */
const createFormId = customId('feed:create', {});
const FORM_FIELDS = { account: 'cuenta', channel: 'canal', kinds: 'tipos' } as const;

export function build(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return localize(s.setName('create'), { name: 'cmd.feed.create.name', description: 'cmd.feed.create.description' })
    .addStringOption((o) =>
      localize(o.setName('cuenta'), { name: 'opt.cuenta.name', description: 'opt.cuenta.description' }).setRequired(false).setMinLength(1).setMaxLength(ACCOUNT_MAX),
    )
    .addChannelOption((o) =>
      localize(o.setName('canal'), { name: 'opt.canal.name', description: 'opt.canal.create.description' })
        .setRequired(false)
        .addChannelTypes(...CHANNEL_TYPES),
    )
    .addStringOption((o) =>
      localize(o.setName('tipos'), { name: 'opt.tipos.name', description: 'opt.tipos.description' })
        .setRequired(false)
        .addChoices(...KIND_COMBINATIONS.map((kinds) => localizedChoice((t) => kindsLabel(t, kinds), kinds.join('+')))),
    );
}

/** What the form starts with: the options given to the slash command, if any. */
interface FormPrefill {
  account?: string;
  channelId?: string;
  kinds?: readonly ContentKind[];
}

/** The modal: three Labels (text input, channel select of text/announcement channels, checkbox group). */
function createForm(t: Translator, prefill: FormPrefill = {}): APIModalInteractionResponseCallbackData {
  return {
    custom_id: createFormId.encode({}),
    title: t('forms.create.title'),
    components: [
      {
        type: ComponentType.Label,
        label: t('forms.create.account.label'),
        description: t('forms.create.account.description'),
        component: {
          type: ComponentType.TextInput,
          custom_id: FORM_FIELDS.account,
          style: TextInputStyle.Short,
          required: true,
          min_length: 1,
          max_length: ACCOUNT_MAX,
          ...(prefill.account ? { value: prefill.account.slice(0, ACCOUNT_MAX) } : {}),
        },
      },
      {
        type: ComponentType.Label,
        label: t('forms.create.channel.label'),
        description: t('forms.create.channel.description'),
        component: {
          type: ComponentType.ChannelSelect,
          custom_id: FORM_FIELDS.channel,
          channel_types: [...CHANNEL_TYPES],
          min_values: 1,
          max_values: 1,
          ...(prefill.channelId ? { default_values: [{ type: 'channel', id: prefill.channelId }] } : {}),
        },
      },
      {
        type: ComponentType.Label,
        label: t('forms.create.kinds.label'),
        description: t('forms.create.kinds.description'),
        component: {
          type: ComponentType.CheckboxGroup,
          custom_id: FORM_FIELDS.kinds,
          min_values: 1,
          max_values: CONTENT_KINDS.length,
          // Nothing given: every kind ticked, the usual choice; given: exactly those.
          options: CONTENT_KINDS.map((kind) => ({ label: kindLabel(t, kind, { plain: true }), value: kind, default: prefill.kinds ? prefill.kinds.includes(kind) : true })),
        },
      },
    ],
  } as APIModalInteractionResponseCallbackData;
}

interface NewFeed {
  cuenta: string;
  canalId: string;
  tipos: ContentKind[];
}

/**
 * The one way a feed is created, from the options or the form: the API call, the audit post, the
 * answer. A create whose answer was lost (a time-out, a 5xx, an unreadable body) may have made
 * the feed: it is never sent again (a second feed), and the user is not told "failed" (they would
 * create it again). The list is read instead: found, it is reported created; not there, the user
 * is told to look again before creating it.
 */
async function createFeed(interaction: Interaction, ctx: HandlerContext, feed: NewFeed): Promise<void> {
  await requireGuildChannel(ctx, interaction.client, feed.canalId);
  let created: ShownFeed;
  try {
    created = await ctx.call((api, auth) => api.createFeed(auth, { ...feed, filtros: [] }));
  } catch (error) {
    if (!mayHaveDoneWork(error)) throw error;
    const found = await findCreated(ctx, feed).catch(() => undefined);
    if (!found) throw new UnconfirmedWriteError('create.unconfirmed', { cuenta: feed.cuenta }, error);
    created = found;
  }
  // Recorded before answering: the feed exists whether or not Discord takes the answer.
  ctx.services.audit.record(
    ctx.guildId(),
    { kind: 'feedCreated', actor: ctx.actor(), feed: { id: created.id, cuenta: created.cuenta, canalId: created.canalId, tipos: feed.tipos } },
    interaction.locale,
  );
  await ctx.respond.send({ embeds: [createdFeedEmbed(ctx.t, created, feed.tipos)] });
}

/** The newest feed of the list with the same account into the same channel, read afresh. */
async function findCreated(ctx: HandlerContext, feed: NewFeed): Promise<ShownFeed | undefined> {
  const list = await ctx.call((api, auth) => api.listFeeds(auth, { fresh: true }));
  const identity = feedIdentity(feed.cuenta, feed.canalId);
  const found = list.feeds.filter((f) => feedIdentity(f.cuenta, f.canal) === identity).sort((a, b) => b.id - a.id)[0];
  return found ? { id: found.id, cuenta: found.cuenta, canalId: found.canal, estado: found.estado, confirmedByList: true } : undefined;
}

function prefillFrom(interaction: ChatInputCommandInteraction): { prefill: FormPrefill; complete: NewFeed | undefined } {
  const account = interaction.options.getString('cuenta');
  const channel = interaction.options.getChannel('canal', false, [...CHANNEL_TYPES]);
  const kinds = interaction.options.getString('tipos');
  const prefill: FormPrefill = {
    ...(account ? { account } : {}),
    ...(channel ? { channelId: channel.id } : {}),
    ...(kinds ? { kinds: parseKinds(kinds) } : {}),
  };
  const complete = account && channel && prefill.kinds ? { cuenta: parseAccount(account), canalId: channel.id, tipos: [...prefill.kinds] } : undefined;
  return { prefill, complete };
}

/** Public: the new feed is news for the channel. */
export const subcommand: SlashDeclaration = {
  guildOnly: true,
  requires: { permission: 'ManageFeeds', action: 'createFeed' },
  ephemeral: false,
  async run(interaction, ctx) {
    const { prefill, complete } = prefillFrom(interaction);
    // The form must be the first answer: shown before anything slow (the precondition is checked already).
    if (!complete) return ctx.respond.showModal(createForm(ctx.t, prefill));
    await createFeed(interaction, ctx, complete);
  },
};

/** What the form holds, validated as the options are (a wrong kind of channel is refused, not guessed). */
function submitted(interaction: ModalSubmitInteraction): NewFeed {
  const cuenta = parseAccount(interaction.fields.getTextInputValue(FORM_FIELDS.account));
  const channel = interaction.fields.getSelectedChannels(FORM_FIELDS.channel, false)?.first();
  if (!channel || !(CHANNEL_TYPES as readonly ChannelType[]).includes(channel.type)) throw new UserError('forms.create.noChannel');
  const ticked: unknown = interaction.fields.getCheckboxGroup(FORM_FIELDS.kinds);
  // discord.js hands the payload's value over as it came: a string would match kinds by substring.
  if (!Array.isArray(ticked)) throw new MalformedInteractionError();
  const tipos = CONTENT_KINDS.filter((kind) => ticked.includes(kind));
  if (tipos.length === 0) throw new UserError('forms.create.noKinds');
  return { cuenta, canalId: channel.id, tipos };
}

/** The form's submit: the permission is checked again (it may have been revoked while the form was open). */
export const formModal: ComponentRoute<ModalSubmitInteraction> = modal({
  id: createFormId,
  guildOnly: true,
  requires: { permission: 'ManageFeeds', action: 'createFeed' },
  answer: 'reply',
  ephemeral: false,
  run: (interaction, ctx) => createFeed(interaction, ctx, submitted(interaction)),
});
