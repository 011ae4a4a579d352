/** Embed colours, one per meaning. */
export const Colors = {
  brand: 0x5865f2,
  success: 0x57f287,
  danger: 0xed4245,
  warning: 0xfee75c,
} as const;

/** Discord's documented limits (../shared/discord-facts.md). */
export const Limits = {
  embedsPerMessage: 10,
  charsPerMessage: 6000,
  fieldsPerEmbed: 25,
  title: 256,
  description: 4096,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  content: 2000,
  choices: 25,
  choiceName: 100,
} as const;
