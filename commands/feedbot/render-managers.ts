/**
 * /feedbot managers: the feed-manager roles and what they allow. Roles are shown as mentions
 * (`<@&id>`), which Discord renders with the role's current name and colour; the answers go out
 * with no allowed mentions, so nobody is pinged.
 */
import { roleMention, type APIEmbed } from 'discord.js';
import type { Translator } from '../../src/i18n/index.js';
import { MAX_MANAGER_ROLES } from '../../src/settings/schema.js';
import { Colors } from '../../src/render/style.js';

export function managersListEmbed(t: Translator, roleIds: readonly string[]): APIEmbed {
  const allows = { name: t('managers.allows.name'), value: t('managers.allows.value') };
  if (roleIds.length === 0) return { title: t('managers.title'), color: Colors.brand, description: t('managers.none'), fields: [allows] };
  return {
    title: t('managers.title'),
    color: Colors.brand,
    // 25 mentions of ≤ 24 characters each: far below the description's limit.
    description: [t('managers.roles'), ...roleIds.map((id) => `• ${roleMention(id)}`)].join('\n'),
    fields: [allows],
    footer: { text: t('managers.footer', { count: roleIds.length, max: MAX_MANAGER_ROLES }) },
  };
}

export function managerAddedEmbed(t: Translator, roleId: string): APIEmbed {
  return { title: t('managers.added.title'), color: Colors.success, description: t('managers.added', { role: roleMention(roleId) }) };
}

export function managerRemovedEmbed(t: Translator, roleId: string): APIEmbed {
  return { title: t('managers.removed.title'), color: Colors.success, description: t('managers.removed', { role: roleMention(roleId) }) };
}
