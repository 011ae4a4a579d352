/** Catalogue strings of the health feature, English and Spanish (same keys; the type checks it). */
export const en = {
  // ─── Warnings (icon added by src/health/feed-health.ts) ───
  'health.warning.channelMissing': 'Channel deleted',
  'health.warning.stale': 'No post for over {days, plural, one {# day} other {# days}}',
  'health.warning.inactive': 'Not active',

  // ─── /feed list filters ───
  'opt.estado.name': 'state',
  'opt.estado.list.description': 'Only feeds in this state (Active, Paused…)',
  'opt.problemas.name': 'problems',
  'opt.problemas.list.description': 'Only feeds with a warning (channel deleted, no recent post, not active)',
  'opt.cuenta.list.description': 'Only feeds whose account name contains this',
  'health.state.choice': '{label} ({value})',
  'health.list.badState':
    '`{value}` is not a state the list can filter on. Use Active, Paused, or a state as the API writes it (letters, digits, `_`, `.`, `-`, up to 20).',
  'health.list.filtered': '{count, plural, one {# feed matches} other {# feeds match}}: {filters}',
  'health.list.filter.cuenta': 'account contains `{cuenta}`',
  'health.list.filter.estado': 'state {estado}',
  'health.list.filter.problemas': 'with a warning',
  'health.list.empty.cuenta': 'No feed follows an account whose name contains `{cuenta}`.',
  'health.list.empty.estado': 'No feed is in state {estado}.',
  'health.list.empty.problemas': 'No feed has a warning: they all look healthy.',
  'health.list.empty.others': 'Without that filter, the others match {count, plural, one {# feed} other {# feeds}}.',

  // ─── /feedbot health threshold ───
  'cmd.feedbot.health.name': 'health',
  'cmd.feedbot.health.description': 'Feed health warnings in this server',
  'cmd.feedbot.health.threshold.name': 'threshold',
  'cmd.feedbot.health.threshold.description': 'Days without a post before a feed is marked; without days, shows the current value',
  'opt.dias.name': 'days',
  'opt.dias.description': 'Days without a post (1–365)',
  'health.threshold.title': 'Feed health',
  'health.threshold.set': 'Feeds with no post for more than **{days, plural, one {# day} other {# days}}** are now marked ⏳ in `/feed list`.',
  'health.threshold.current': 'Feeds with no post for more than **{days, plural, one {# day} other {# days}}** are marked ⏳ in `/feed list`. Change it with `/feedbot health threshold days:`.',
  'health.threshold.currentDefault':
    'Feeds with no post for more than **{days, plural, one {# day} other {# days}}** (the default) are marked ⏳ in `/feed list`. Change it with `/feedbot health threshold days:`.',
} as const;

export const es: Record<keyof typeof en, string> = {
  'health.warning.channelMissing': 'Canal eliminado',
  'health.warning.stale': 'Sin publicaciones desde hace más de {days, plural, one {# día} other {# días}}',
  'health.warning.inactive': 'No activo',

  'opt.estado.name': 'estado',
  'opt.estado.list.description': 'Solo los feeds en este estado (Activo, En pausa…)',
  'opt.problemas.name': 'problemas',
  'opt.problemas.list.description': 'Solo los feeds con algún aviso (canal eliminado, sin publicaciones recientes, no activo)',
  'opt.cuenta.list.description': 'Solo los feeds cuyo nombre de cuenta contiene esto',
  'health.state.choice': '{label} ({value})',
  'health.list.badState':
    '`{value}` no es un estado por el que se pueda filtrar. Usa Activo, En pausa o un estado tal como lo escribe la API (letras, dígitos, `_`, `.`, `-`, hasta 20).',
  'health.list.filtered': '{count, plural, one {# feed coincide} other {# feeds coinciden}}: {filters}',
  'health.list.filter.cuenta': 'la cuenta contiene `{cuenta}`',
  'health.list.filter.estado': 'estado {estado}',
  'health.list.filter.problemas': 'con algún aviso',
  'health.list.empty.cuenta': 'Ningún feed sigue una cuenta cuyo nombre contenga `{cuenta}`.',
  'health.list.empty.estado': 'Ningún feed está en estado {estado}.',
  'health.list.empty.problemas': 'Ningún feed tiene avisos: todos parecen estar bien.',
  'health.list.empty.others': 'Sin ese filtro, los demás coinciden con {count, plural, one {# feed} other {# feeds}}.',

  'cmd.feedbot.health.name': 'salud',
  'cmd.feedbot.health.description': 'Avisos de salud de los feeds de este servidor',
  'cmd.feedbot.health.threshold.name': 'umbral',
  'cmd.feedbot.health.threshold.description': 'Días sin publicaciones antes de marcar un feed; sin días, muestra el valor actual',
  'opt.dias.name': 'dias',
  'opt.dias.description': 'Días sin publicaciones (1–365)',
  'health.threshold.title': 'Salud de los feeds',
  'health.threshold.set': 'A partir de ahora, los feeds sin publicaciones desde hace más de **{days, plural, one {# día} other {# días}}** se marcan con ⏳ en `/feed lista`.',
  'health.threshold.current':
    'Los feeds sin publicaciones desde hace más de **{days, plural, one {# día} other {# días}}** se marcan con ⏳ en `/feed lista`. Cámbialo con `/feedbot salud umbral dias:`.',
  'health.threshold.currentDefault':
    'Los feeds sin publicaciones desde hace más de **{days, plural, one {# día} other {# días}}** (el valor por defecto) se marcan con ⏳ en `/feed lista`. Cámbialo con `/feedbot salud umbral dias:`.',
};
