/**
 * Catalogue strings of the /feed list panel, the feed card and the "Feed of this post" message
 * command, English and Spanish (same keys; the type checks it).
 */
export const en = {
  // The panel under /feed list.
  'panel.manage.placeholder': 'Manage a feed…',
  'panel.manage.healthy': 'No problem noticed',
  'panel.channel.placeholder': 'Filter by channel…',
  'panel.state.placeholder': 'Filter by state…',
  'panel.state.all': 'Every state',
  'panel.problems.on': 'Only with a warning: on',
  'panel.problems.off': 'Only with a warning',
  'panel.notYours': 'This panel belongs to whoever ran `/feed list`: its filters and pages change the message for everyone. Run `/feed list` yourself to filter and page your own.',

  // The feed card.
  'card.title': 'Feed #{id} · @{cuenta}',
  'card.field.account': 'Account',
  'card.field.channel': 'Channel',
  'card.field.state': 'State',
  'card.field.kinds': 'Content',
  'card.field.filters': 'Filters',
  'card.field.health': 'Health',
  'card.field.latest': 'Latest post',
  'card.healthy': 'No problem noticed',
  'card.latest.value': '{kind} · forwarded <t:{at}:R>',
  'card.latest.link': '[Open the post]({url})',
  'card.latest.none': 'None forwarded yet',
  'card.button.posts': 'Posts',
  'card.button.delete': 'Delete',
  'card.button.open': 'Feed card',

  // The message command.
  'cmd.feedOfPost.name': 'Feed of this post',
  'feedOfPost.noLink': 'This message holds no post link, so it cannot be matched to a feed. Right-click a post the service forwarded.',
  'feedOfPost.noFeeds': 'No feed of this server forwards into <#{channel}>.',
  'feedOfPost.none':
    '{count, plural, one {The feed} other {None of the # feeds}} forwarding into <#{channel}> {count, plural, one {does not have} other {has}} this post among its latest posts.',
  'feedOfPost.noneBounded':
    'None of the {read} most recently active of the {count} feeds forwarding into <#{channel}> has this post among its latest posts; the others were not read. Look for it with `/feed list` and `/feed posts`.',
  'feedOfPost.several': 'This post is among the latest posts of {count, plural, one {# feed} other {# feeds}} in <#{channel}>: choose one.',
  'feedOfPost.pick.placeholder': 'Choose the feed…',
} as const;

export const es: Record<keyof typeof en, string> = {
  'panel.manage.placeholder': 'Gestionar un feed…',
  'panel.manage.healthy': 'Sin problemas detectados',
  'panel.channel.placeholder': 'Filtrar por canal…',
  'panel.state.placeholder': 'Filtrar por estado…',
  'panel.state.all': 'Todos los estados',
  'panel.problems.on': 'Solo con algún aviso: sí',
  'panel.problems.off': 'Solo con algún aviso',
  'panel.notYours': 'Este panel es de quien ejecutó `/feed lista`: sus filtros y páginas cambian el mensaje para todos. Ejecuta `/feed lista` tú para filtrar y paginar el tuyo.',

  'card.title': 'Feed #{id} · @{cuenta}',
  'card.field.account': 'Cuenta',
  'card.field.channel': 'Canal',
  'card.field.state': 'Estado',
  'card.field.kinds': 'Contenido',
  'card.field.filters': 'Filtros',
  'card.field.health': 'Estado de salud',
  'card.field.latest': 'Última publicación',
  'card.healthy': 'Sin problemas detectados',
  'card.latest.value': '{kind} · reenviada <t:{at}:R>',
  'card.latest.link': '[Abrir la publicación]({url})',
  'card.latest.none': 'Aún no se ha reenviado ninguna',
  'card.button.posts': 'Publicaciones',
  'card.button.delete': 'Eliminar',
  'card.button.open': 'Ficha del feed',

  'cmd.feedOfPost.name': 'Feed de esta publicación',
  'feedOfPost.noLink': 'Este mensaje no contiene el enlace de una publicación, así que no se puede asociar a un feed. Haz clic derecho en una publicación que reenvió el servicio.',
  'feedOfPost.noFeeds': 'Ningún feed de este servidor reenvía a <#{channel}>.',
  'feedOfPost.none': '{count, plural, one {El feed que reenvía} other {Ninguno de los # feeds que reenvían}} a <#{channel}> {count, plural, one {no tiene} other {tiene}} esta publicación entre sus últimas publicaciones.',
  'feedOfPost.noneBounded':
    'Ninguno de los {read} feeds con actividad más reciente, de los {count} que reenvían a <#{channel}>, tiene esta publicación entre sus últimas publicaciones; los demás no se leyeron. Búscala con `/feed lista` y `/feed publicaciones`.',
  'feedOfPost.several': 'Esta publicación está entre las últimas de {count, plural, one {# feed} other {# feeds}} en <#{channel}>: elige uno.',
  'feedOfPost.pick.placeholder': 'Elige el feed…',
};
