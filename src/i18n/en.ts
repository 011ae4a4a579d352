import * as audit from './features/audit.js';
import * as feedbot from './features/feedbot.js';
import * as createDeleteSettings from './features/create-delete-settings.js';
import * as forget from './features/forget.js';
import * as health from './features/health.js';
import * as managers from './features/managers.js';
import * as sweeps from './features/sweeps.js';
import * as transfer from './features/transfer.js';
import * as feedPanelAndCard from './features/feed-panel-and-card.js';

/**
 * English catalogue: the reference. Every string a user sees lives here and in es.ts (same keys,
 * checked by the compiler and by test/i18n.test.ts). Placeholders are written {name}.
 */
export const en = {
  // ─── Command builders (names stay short, descriptions ≤ 100 characters) ───
  'cmd.feed.description': 'Manage the social feeds forwarded into this server',
  'cmd.feed.list.name': 'list',
  'cmd.feed.list.description': "List this server's feeds",
  'cmd.feed.create.name': 'create',
  'cmd.feed.create.description': 'Forward a social account into a channel',
  'cmd.feed.delete.name': 'delete',
  'cmd.feed.delete.description': 'Delete one feed, every feed of a channel, or every feed with a warning',
  'cmd.feed.posts.name': 'posts',
  'cmd.feed.posts.description': 'Show the latest posts a feed forwarded',
  'cmd.stats.name': 'stats',
  'cmd.stats.description': "Show this server's forwarding statistics",
  'cmd.apikey.name': 'apikey',
  'cmd.apikey.description': "Manage this server's feed API key (admins)",
  'cmd.apikey.set.name': 'set',
  'cmd.apikey.set.description': 'Set or replace the API key (opens a private form)',
  'cmd.apikey.status.name': 'status',
  'cmd.apikey.status.description': 'Show the stored key (masked), who set it and its scopes',
  'cmd.apikey.remove.name': 'remove',
  'cmd.apikey.remove.description': 'Remove the stored API key',

  'opt.canal.name': 'channel',
  'opt.canal.list.description': 'Only feeds that forward into this channel',
  'opt.canal.create.description': 'Channel the posts are forwarded to',
  'opt.pagina.name': 'page',
  'opt.pagina.description': 'Page to show (starts at 1)',
  'opt.cuenta.name': 'account',
  'opt.cuenta.description': 'Account name, @name or profile URL',
  'opt.tipos.name': 'types',
  'opt.tipos.description': 'Which kinds of content to forward',
  'opt.id.name': 'id',
  'opt.id.delete.description': 'The feed to delete',
  'opt.id.posts.description': 'The feed whose posts to show',
  'opt.limite.name': 'limit',
  'opt.limite.description': 'How many posts (1–50, default 10)',
  'opt.tipo.name': 'type',
  'opt.tipo.description': 'Only posts of this kind',

  'kind.post': 'Posts',
  'kind.reel': 'Reels',
  'kind.story': 'Stories',
  'kind.one.post': 'Post',
  'kind.one.reel': 'Reel',
  'kind.one.story': 'Story',
  'kinds.separator': ' + ',

  // ─── Feed list ───
  'list.title': 'Feeds',
  'list.title.channel': 'Feeds in #{channel}',
  'list.empty': 'This server has no feeds yet. Create one with `/feed create`.',
  'list.empty.channel': 'No feed forwards into <#{channel}>.',
  'list.field.name': '#{id} · @{cuenta}',
  'list.field.value': '{channel} · {estado}\n{tipos} · {filtros}\nLatest post: {ultimoPost}',
  'list.filters': '{count, plural, one {# filter} other {# filters}}',
  'list.never': 'none yet',
  // "Latest post" is always the latest post the feed forwarded to Discord (the API's ultimoPost).
  'list.latest': 'forwarded <t:{at}:R>',
  'list.footer': '{total, plural, one {# feed} other {# feeds}} · {plan} · page {page}/{pages}',
  // A plan the API names: a known one through the catalogue (plan.*), any other as the API wrote it.
  'list.plan': '{plan} plan',
  'plan.server': 'Server',
  'list.pageOutOfRange': 'There is no page {page}: the list has {pages, plural, one {# page} other {# pages}}.',
  'state.activo': 'Active',
  'state.pausado': 'Paused',
  'button.previous': 'Previous',
  'button.next': 'Next',
  'button.notYours': 'Only the person who ran this command can use these buttons.',

  // ─── Feed create ───
  'create.title': 'Feed created',
  'create.description': 'Posts from **@{cuenta}** will be forwarded to <#{channel}>.',
  'create.field.id': 'Feed id',
  'create.field.state': 'State',
  'create.field.kinds': 'Content',
  'create.field.created': 'Created',
  'create.confirmedByList': "The feed API's answer was lost; the feed was found in its list.",
  'create.unconfirmed':
    'The feed API did not confirm that the feed for `@{cuenta}` was created, and it is not in the list yet. It may still appear: look at `/feed list` in a minute before creating it again.',
  'create.badAccount':
    '`{value}` is not a valid account. Use the account name (letters, digits, `.` and `_`, up to 30), `@name` or a profile URL.',
  'create.account.notProfile':
    '`{value}` is a link to a post or a page of Instagram, not to an account. Paste the account\'s profile URL (`https://www.instagram.com/name/`) or its `@name`.',
  'create.account.otherSite':
    '`{value}` is not an Instagram link. Paste the account\'s profile URL (`https://www.instagram.com/name/`) or its `@name`.',

  // ─── Feed delete ───
  'delete.confirm.title': 'Delete feed #{id}?',
  'delete.confirm.description':
    'This permanently deletes the feed **#{id}**{details}. Forwarding stops at once and it cannot be undone.\nThis confirmation expires {expires}.',
  'delete.confirm.details': ' (@{cuenta} → <#{channel}>)',
  'delete.button.confirm': 'Delete',
  'delete.button.cancel': 'Cancel',
  'delete.unconfirmed': 'The feed API did not confirm whether feed #{id} was deleted, and its list could not be read. Look at `/feed list` before trying again.',
  'delete.done.title': 'Feed deleted',
  'delete.done': 'Feed #{id} was deleted.',
  'delete.notConfirmed': 'The API answered without confirming that feed #{id} was deleted. Check with `/feed list`.',
  'delete.cancelled': 'Cancelled: feed #{id} was not deleted.',
  'delete.expired': 'This confirmation has expired. Run `/feed delete` again.',

  // ─── Feed posts ───
  'posts.empty': 'Feed #{id} has not forwarded any posts yet.',
  'posts.empty.kind': 'Feed #{id} has no {kind} yet.',
  'posts.header': 'Latest posts of feed #{id} ({from}–{to} of {total})',
  'posts.noCaption': '(no caption)',
  'posts.field.published': 'Published by the account',
  'posts.field.forwarded': 'Forwarded to Discord',

  // ─── Stats ───
  'stats.title': 'Forwarding statistics',
  'stats.field.servidor': 'Server',
  'stats.field.plan': 'Plan',
  'stats.field.feedsActivos': 'Active feeds',
  'stats.field.feedsPausados': 'Paused feeds',
  'stats.field.postsHoy': 'Posts today',
  'stats.field.postsEstaSemana': 'Posts this week',
  'stats.field.cuentaMasActiva': 'Most active account',
  'stats.field.ultimaActividad': 'Latest activity',
  'stats.none': 'none',

  // ─── API key ───
  'apikey.modal.title': 'Feed API key',
  'apikey.modal.label': 'API key',
  'apikey.modal.description': 'Paste the key from the dashboard (API & webhooks). Only the bot sees it.',
  'apikey.set.title': 'API key saved',
  'apikey.set.description': 'The key {masked} is now used for this server. It will not be shown again in full.',
  'apikey.scopes': 'Scopes',
  'apikey.scope.yes': '✅ `{scope}`',
  'apikey.scope.no': '❌ `{scope}`',
  'apikey.scope.unknown': '❔ `{scope}` (could not be checked)',
  'apikey.set.missingScopes': 'Commands needing a missing scope will explain it when used.',
  'apikey.invalid': 'The API refused this key (401). Check that you copied it whole and that it was not regenerated. Nothing was saved.',
  'apikey.planRequired':
    "This key is valid, but its account is not on the `server` plan, which the feed API requires. Nothing was saved: upgrade the plan in the dashboard, then set the key again.",
  'apikey.otherServer': 'This key belongs to another server ({servidor}), not this one. Nothing was saved.',
  'apikey.otherServer.channels':
    "This key's feeds forward into another server's channels, none into this server's: the key belongs to that server. Nothing was saved.",
  'apikey.ownership': 'Server',
  'apikey.ownership.verified': '✅ Verified: this key belongs to this server.',
  'apikey.ownership.unverified':
    '⚠️ Not verified: the bot could not confirm that this key belongs to this server. Make sure the key has the `stats:read` scope (dashboard, API & webhooks), then set it again with `/apikey set`.',
  'apikey.badFormat': 'That does not look like an API key (it must be 8–512 visible characters, no spaces). Nothing was saved.',
  'apikey.status.title': 'API key',
  'apikey.status.none': 'No API key is set for this server. An admin can set one with `/apikey set`.',
  'apikey.status.key': 'Key',
  'apikey.status.setBy': 'Set by',
  'apikey.status.setAt': 'Set',
  'apikey.removed': 'The API key was removed. Feed commands stop working until an admin sets a new one.',
  'apikey.removed.none': 'There was no API key to remove.',

  // ─── The API's own words, quoted after one of our sentences (src/render/api-text.ts) ───
  'api.says': 'The API says: “{message}”',

  // ─── Errors ───
  'error.guildOnly': 'This command only works inside a server.',
  'error.noKey': 'This server has no feed API key yet. An admin (Manage Server) must run `/apikey set` first.',
  'error.missingPermission': 'You need the **Manage Server** permission to {action}.',
  'action.createFeed': 'create feeds',
  'action.deleteFeed': 'delete feeds',
  'action.manageKey': 'manage the API key',
  'error.badRequest': 'The API rejected the request as invalid.',
  'error.unauthorized':
    'The API key of this server is invalid or was regenerated. An admin must set the new key with `/apikey set`.',
  'error.forbidden':
    'The API key of this server lacks the `{scope}` scope needed here. Generate a key with that scope in the dashboard (API & webhooks) and set it with `/apikey set`.',
  'error.planRequired':
    "The feed API is only available on the `server` plan, and this key's account is not on it. Upgrade the plan in the dashboard, then try again.",
  'error.notFound': 'Feed #{id} does not exist in this server.',
  'error.notFound.generic': 'The API could not find what was asked for.',
  'error.rateLimited':
    'This server used its 100 requests per minute to the feed API. The limit resets {relative} (at {time}); try again then.',
  'error.server': 'The feed API had an internal error ({status}). Try again in a moment.',
  'error.unexpectedStatus': 'The feed API answered with an unexpected status ({status}).',
  'error.timeout': 'The feed API did not answer in time. Try again in a moment.',
  'error.connection': 'The feed API cannot be reached right now. Try again in a moment.',
  'error.invalidResponse': 'The feed API sent an answer that does not match its specification. Reference: `{ref}`.',
  'error.keyUnreadable':
    'The stored API key cannot be read (it may have been encrypted with another secret). An admin must set it again with `/apikey set`. Reference: `{ref}`.',
  'error.reference': 'Reference: `{ref}`.',
  'error.unknown': 'Something unexpected went wrong. Reference: `{ref}`.',
  'error.unknownCommand': 'This command is not known to this version of the bot.',
  'error.badOption': 'The option `{option}` is invalid: {reason}',
  'error.optionRange': 'The option `{option}` must be a whole number from {min} to {max}.',
  'error.expiredComponent': 'These buttons have expired. Run the command again.',
  'error.channelNotInGuild': 'That channel is not one of this server\'s. Choose a channel of this server.',
  'error.roleNotInGuild': 'That role is not one of this server\'s. Choose a role of this server.',
  'error.malformedInteraction': 'What Discord sent for this arrived incomplete, so nothing was done. Try again; if you filled in a form, open it again.',

  // ─── Features with their own catalogue file (src/i18n/features/) ───
  ...feedbot.en,
  ...audit.en,
  ...managers.en,
  ...health.en,
  ...transfer.en,
  ...feedPanelAndCard.en,
  ...createDeleteSettings.en,
  ...sweeps.en,
  ...forget.en,
} as const;

export type MessageKey = keyof typeof en;
