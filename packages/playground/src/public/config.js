/**
 * Configuration for @skyra/discord-components-core, read once when it loads: every avatar is a
 * local file, so the playground never reaches for Discord's CDN (it works with no network).
 */
globalThis.$discordMessage = {
  defaultTheme: 'dark',
  avatars: {
    default: '/static/avatars/feedbot.svg',
    blue: '/static/avatars/feedbot.svg',
    gray: '/static/avatars/max.svg',
    green: '/static/avatars/max.svg',
    orange: '/static/avatars/ana.svg',
    red: '/static/avatars/ana.svg',
    pink: '/static/avatars/ana.svg',
  },
};
