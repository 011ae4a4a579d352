/** Catalogue strings of the /feedbot command itself (its groups have their own feature files). */
export const en = {
  'cmd.feedbot.description': "Configure feedbot in this server: audit channel, feed managers, feed health",
} as const;

export const es: Record<keyof typeof en, string> = {
  'cmd.feedbot.description': 'Configura feedbot en este servidor: canal de auditoría, gestores de feeds, salud de los feeds',
};
