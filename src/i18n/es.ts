import type { MessageKey } from './en.js';
import * as audit from './features/audit.js';
import * as feedbot from './features/feedbot.js';
import * as createDeleteSettings from './features/create-delete-settings.js';
import * as forget from './features/forget.js';
import * as health from './features/health.js';
import * as managers from './features/managers.js';
import * as sweeps from './features/sweeps.js';
import * as transfer from './features/transfer.js';
import * as feedPanelAndCard from './features/feed-panel-and-card.js';

/** Spanish catalogue (es-ES and es-419). Same keys as en.ts; the type makes a missing key a compile error. */
export const es: Record<MessageKey, string> = {
  'cmd.feed.description': 'Gestiona los feeds de redes sociales que se reenvían a este servidor',
  'cmd.feed.list.name': 'lista',
  'cmd.feed.list.description': 'Lista los feeds de este servidor',
  'cmd.feed.create.name': 'crear',
  'cmd.feed.create.description': 'Reenvía una cuenta social a un canal',
  'cmd.feed.delete.name': 'eliminar',
  'cmd.feed.delete.description': 'Elimina un feed, todos los de un canal o todos los que tienen avisos',
  'cmd.feed.posts.name': 'publicaciones',
  'cmd.feed.posts.description': 'Muestra las últimas publicaciones que reenvió un feed',
  'cmd.stats.name': 'estadisticas',
  'cmd.stats.description': 'Muestra las estadísticas de reenvío de este servidor',
  'cmd.apikey.name': 'clave-api',
  'cmd.apikey.description': 'Gestiona la clave de API de este servidor para la API de feeds (admins)',
  'cmd.apikey.set.name': 'establecer',
  'cmd.apikey.set.description': 'Establece o sustituye la clave de API (abre un formulario privado)',
  'cmd.apikey.status.name': 'estado',
  'cmd.apikey.status.description': 'Muestra la clave guardada (enmascarada), quién la puso y sus permisos',
  'cmd.apikey.remove.name': 'quitar',
  'cmd.apikey.remove.description': 'Quita la clave de API guardada',

  'opt.canal.name': 'canal',
  'opt.canal.list.description': 'Solo los feeds que reenvían a este canal',
  'opt.canal.create.description': 'Canal al que se reenvían las publicaciones',
  'opt.pagina.name': 'pagina',
  'opt.pagina.description': 'Página que mostrar (empieza en 1)',
  'opt.cuenta.name': 'cuenta',
  'opt.cuenta.description': 'Nombre de la cuenta, @nombre o URL del perfil',
  'opt.tipos.name': 'tipos',
  'opt.tipos.description': 'Qué tipos de contenido reenviar',
  'opt.id.name': 'id',
  'opt.id.delete.description': 'El feed que eliminar',
  'opt.id.posts.description': 'El feed cuyas publicaciones mostrar',
  'opt.limite.name': 'limite',
  'opt.limite.description': 'Cuántas publicaciones (1–50, por defecto 10)',
  'opt.tipo.name': 'tipo',
  'opt.tipo.description': 'Solo publicaciones de este tipo',

  'kind.post': 'Publicaciones',
  'kind.reel': 'Reels',
  'kind.story': 'Historias',
  'kind.one.post': 'Publicación',
  'kind.one.reel': 'Reel',
  'kind.one.story': 'Historia',
  'kinds.separator': ' + ',

  'list.title': 'Feeds',
  'list.title.channel': 'Feeds en #{channel}',
  'list.empty': 'Este servidor aún no tiene feeds. Crea uno con `/feed crear`.',
  'list.empty.channel': 'Ningún feed reenvía a <#{channel}>.',
  'list.field.name': '#{id} · @{cuenta}',
  'list.field.value': '{channel} · {estado}\n{tipos} · {filtros}\nÚltima publicación: {ultimoPost}',
  'list.filters': '{count, plural, one {# filtro} other {# filtros}}',
  'list.never': 'ninguna todavía',
  'list.latest': 'reenviada <t:{at}:R>',
  'list.footer': '{total, plural, one {# feed} other {# feeds}} · {plan} · página {page}/{pages}',
  'list.plan': 'plan {plan}',
  'plan.server': 'Servidor',
  'list.pageOutOfRange': 'No existe la página {page}: la lista tiene {pages, plural, one {# página} other {# páginas}}.',
  'state.activo': 'Activo',
  'state.pausado': 'En pausa',
  'button.previous': 'Anterior',
  'button.next': 'Siguiente',
  'button.notYours': 'Solo quien ejecutó este comando puede usar estos botones.',

  'create.title': 'Feed creado',
  'create.description': 'Las publicaciones de **@{cuenta}** se reenviarán a <#{channel}>.',
  'create.field.id': 'Id del feed',
  'create.field.state': 'Estado',
  'create.field.kinds': 'Contenido',
  'create.field.created': 'Creado',
  'create.confirmedByList': 'La respuesta de la API de feeds se perdió; el feed se encontró en su lista.',
  'create.unconfirmed':
    'La API de feeds no confirmó que se creara el feed de `@{cuenta}` y todavía no aparece en la lista. Puede aparecer aún: mira `/feed lista` dentro de un minuto antes de volver a crearlo.',
  'create.badAccount':
    '`{value}` no es una cuenta válida. Usa el nombre de la cuenta (letras, dígitos, `.` y `_`, hasta 30), `@nombre` o la URL del perfil.',
  'create.account.notProfile':
    '`{value}` es un enlace a una publicación o a una página de Instagram, no a una cuenta. Pega la URL del perfil de la cuenta (`https://www.instagram.com/nombre/`) o su `@nombre`.',
  'create.account.otherSite':
    '`{value}` no es un enlace de Instagram. Pega la URL del perfil de la cuenta (`https://www.instagram.com/nombre/`) o su `@nombre`.',

  'delete.confirm.title': '¿Eliminar el feed #{id}?',
  'delete.confirm.description':
    'Esto elimina para siempre el feed **#{id}**{details}. El reenvío se detiene al momento y no se puede deshacer.\nEsta confirmación caduca {expires}.',
  'delete.confirm.details': ' (@{cuenta} → <#{channel}>)',
  'delete.button.confirm': 'Eliminar',
  'delete.button.cancel': 'Cancelar',
  'delete.unconfirmed': 'La API de feeds no confirmó si el feed #{id} se eliminó, y su lista no se pudo leer. Mira `/feed lista` antes de volver a intentarlo.',
  'delete.done.title': 'Feed eliminado',
  'delete.done': 'Se eliminó el feed #{id}.',
  'delete.notConfirmed': 'La API respondió sin confirmar que se eliminara el feed #{id}. Compruébalo con `/feed lista`.',
  'delete.cancelled': 'Cancelado: el feed #{id} no se eliminó.',
  'delete.expired': 'Esta confirmación ha caducado. Vuelve a ejecutar `/feed eliminar`.',

  'posts.empty': 'El feed #{id} aún no ha reenviado ninguna publicación.',
  'posts.empty.kind': 'El feed #{id} aún no tiene {kind}.',
  'posts.header': 'Últimas publicaciones del feed #{id} ({from}–{to} de {total})',
  'posts.noCaption': '(sin texto)',
  'posts.field.published': 'Publicado por la cuenta',
  'posts.field.forwarded': 'Reenviado a Discord',

  'stats.title': 'Estadísticas de reenvío',
  'stats.field.servidor': 'Servidor',
  'stats.field.plan': 'Plan',
  'stats.field.feedsActivos': 'Feeds activos',
  'stats.field.feedsPausados': 'Feeds en pausa',
  'stats.field.postsHoy': 'Publicaciones hoy',
  'stats.field.postsEstaSemana': 'Publicaciones esta semana',
  'stats.field.cuentaMasActiva': 'Cuenta más activa',
  'stats.field.ultimaActividad': 'Última actividad',
  'stats.none': 'ninguna',

  'apikey.modal.title': 'Clave de API de feeds',
  'apikey.modal.label': 'Clave de API',
  'apikey.modal.description': 'Pega la clave del panel (API y webhooks). Solo el bot la ve.',
  'apikey.set.title': 'Clave de API guardada',
  'apikey.set.description': 'La clave {masked} se usa ahora para este servidor. No se volverá a mostrar completa.',
  'apikey.scopes': 'Permisos',
  'apikey.scope.yes': '✅ `{scope}`',
  'apikey.scope.no': '❌ `{scope}`',
  'apikey.scope.unknown': '❔ `{scope}` (no se pudo comprobar)',
  'apikey.set.missingScopes': 'Los comandos que necesiten un permiso que falta lo explicarán al usarse.',
  'apikey.invalid':
    'La API rechazó esta clave (401). Comprueba que la copiaste entera y que no se regeneró. No se guardó nada.',
  'apikey.planRequired':
    'Esta clave es válida, pero su cuenta no tiene el plan `server` que exige la API de feeds. No se guardó nada: mejora el plan en el panel y vuelve a poner la clave.',
  'apikey.otherServer': 'Esta clave pertenece a otro servidor ({servidor}), no a este. No se guardó nada.',
  'apikey.otherServer.channels':
    'Los feeds de esta clave reenvían a canales de otro servidor y a ninguno de este: la clave pertenece a ese servidor. No se guardó nada.',
  'apikey.ownership': 'Servidor',
  'apikey.ownership.verified': '✅ Verificada: esta clave pertenece a este servidor.',
  'apikey.ownership.unverified':
    '⚠️ Sin verificar: el bot no pudo confirmar que esta clave pertenezca a este servidor. Asegúrate de que la clave tenga el permiso `stats:read` (panel, API y webhooks) y vuelve a ponerla con `/clave-api establecer`.',
  'apikey.badFormat':
    'Eso no parece una clave de API (debe tener 8–512 caracteres visibles, sin espacios). No se guardó nada.',
  'apikey.status.title': 'Clave de API',
  'apikey.status.none': 'Este servidor no tiene clave de API. Un admin puede ponerla con `/clave-api establecer`.',
  'apikey.status.key': 'Clave',
  'apikey.status.setBy': 'Puesta por',
  'apikey.status.setAt': 'Fecha',
  'apikey.removed': 'Se quitó la clave de API. Los comandos de feeds no funcionarán hasta que un admin ponga otra.',
  'apikey.removed.none': 'No había ninguna clave que quitar.',

  'api.says': 'La API dice: «{message}»',

  'error.guildOnly': 'Este comando solo funciona dentro de un servidor.',
  'error.noKey':
    'Este servidor aún no tiene clave de API para la API de feeds. Un admin (Gestionar servidor) debe ejecutar `/clave-api establecer` primero.',
  'error.missingPermission': 'Necesitas el permiso **Gestionar servidor** para {action}.',
  'action.createFeed': 'crear feeds',
  'action.deleteFeed': 'eliminar feeds',
  'action.manageKey': 'gestionar la clave de API',
  'error.badRequest': 'La API rechazó la petición por no ser válida.',
  'error.unauthorized':
    'La clave de API de este servidor no es válida o se regeneró. Un admin debe poner la nueva con `/clave-api establecer`.',
  'error.forbidden':
    'A la clave de API de este servidor le falta el permiso `{scope}` que se necesita aquí. Genera en el panel (API y webhooks) una clave con ese permiso y ponla con `/clave-api establecer`.',
  'error.planRequired':
    'La API de feeds solo está disponible en el plan `server` y la cuenta de esta clave no lo tiene. Mejora el plan en el panel y vuelve a intentarlo.',
  'error.notFound': 'El feed #{id} no existe en este servidor.',
  'error.notFound.generic': 'La API no encontró lo que se pidió.',
  'error.rateLimited':
    'Este servidor ha usado sus 100 peticiones por minuto a la API de feeds. El límite se restablece {relative} (a las {time}); vuelve a intentarlo entonces.',
  'error.server': 'La API de feeds tuvo un error interno ({status}). Inténtalo de nuevo en un momento.',
  'error.unexpectedStatus': 'La API de feeds respondió con un estado inesperado ({status}).',
  'error.timeout': 'La API de feeds no respondió a tiempo. Inténtalo de nuevo en un momento.',
  'error.connection': 'No se puede contactar con la API de feeds ahora mismo. Inténtalo de nuevo en un momento.',
  'error.invalidResponse':
    'La API de feeds envió una respuesta que no cumple su especificación. Referencia: `{ref}`.',
  'error.keyUnreadable':
    'No se puede leer la clave de API guardada (quizá se cifró con otro secreto). Un admin debe volver a ponerla con `/clave-api establecer`. Referencia: `{ref}`.',
  'error.reference': 'Referencia: `{ref}`.',
  'error.unknown': 'Ocurrió algo inesperado. Referencia: `{ref}`.',
  'error.unknownCommand': 'Esta versión del bot no conoce este comando.',
  'error.badOption': 'La opción `{option}` no es válida: {reason}',
  'error.optionRange': 'La opción `{option}` debe ser un número entero de {min} a {max}.',
  'error.expiredComponent': 'Estos botones han caducado. Vuelve a ejecutar el comando.',
  'error.channelNotInGuild': 'Ese canal no es de este servidor. Elige un canal de este servidor.',
  'error.roleNotInGuild': 'Ese rol no es de este servidor. Elige un rol de este servidor.',
  'error.malformedInteraction': 'Lo que envió Discord llegó incompleto, así que no se ha hecho nada. Vuelve a intentarlo; si rellenaste un formulario, ábrelo de nuevo.',

  ...feedbot.es,
  ...audit.es,
  ...managers.es,
  ...health.es,
  ...transfer.es,
  ...feedPanelAndCard.es,
  ...createDeleteSettings.es,
  ...sweeps.es,
  ...forget.es,
};
