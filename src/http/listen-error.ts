/**
 * A listener that could not bind, as the one line an operator can act on: what is listening,
 * where, and which variable to change. Shared by the ops listener and POST /interactions.
 */
/** A listener could not bind; its message is the one line an operator can act on. */
export class ListenError extends Error {
  override name = 'ListenError';
}

/** The listen failure of `what`, configured by the variables `vars`, as one line. */
export function listenError(error: NodeJS.ErrnoException, host: string, port: number, what = 'metrics listener', vars = { port: 'METRICS_PORT', host: 'METRICS_HOST' }): ListenError {
  const where = `${host}:${port}`;
  const hint =
    error.code === 'EADDRINUSE'
      ? `${where} is already in use: choose another ${vars.port}`
      : error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND'
        ? `${host} is not an address of this machine: check ${vars.host}`
        : error.code === 'EACCES'
          ? `not allowed to listen on ${where}: use a port above 1023 or grant the permission`
          : `could not listen on ${where} (${error.code ?? error.message})`;
  return new ListenError(`${what}: ${hint}`, { cause: error });
}
