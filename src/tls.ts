// TLS for the HTTP and gRPC servers (--tls-cert, --tls-key, and --tls-ca for
// mutual TLS). Certificate files are re-read when they change: HTTP swaps its
// secure context (Node's setSecureContext) and gRPC uses grpc-js's file-watching
// certificate provider; both only affect new handshakes, so open connections
// and their streams stay up.
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import type { ServerOptions } from 'node:https';
import type { Server as TlsServer } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import type pino from 'pino';
import type { Config } from './config';
import { HubError } from './errors';

type TlsConfig = Pick<Config, 'tlsCert' | 'tlsKey' | 'tlsCa' | 'tlsReloadIntervalMs'>;

function read(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new HubError('INVALID_ARGUMENT', `${flag}: cannot read ${path}: ${(err as Error).message}`, {
      field: flag,
      cause: err,
    });
  }
}

function contextOptions(config: TlsConfig): { cert: Buffer; key: Buffer; ca?: Buffer } {
  return {
    cert: read(config.tlsCert!, 'tls-cert'),
    key: read(config.tlsKey!, 'tls-key'),
    ...(config.tlsCa ? { ca: read(config.tlsCa, 'tls-ca') } : {}),
  };
}

/** fastify's `https` options, or undefined without --tls-cert. With --tls-ca a client certificate is required. */
export function httpsOptions(config: TlsConfig): ServerOptions | undefined {
  if (!config.tlsCert || !config.tlsKey) return undefined;
  const mutual = config.tlsCa !== undefined;
  return { ...contextOptions(config), requestCert: mutual, rejectUnauthorized: mutual };
}

/** Re-reads the files when one changes and swaps the server's secure context; returns stop(). A bad file keeps the old context. */
export function watchHttpsFiles(server: TlsServer, config: TlsConfig, logger: pino.Logger): () => void {
  const files = [config.tlsCert, config.tlsKey, config.tlsCa].filter((f): f is string => f !== undefined);
  const reload = () => {
    try {
      server.setSecureContext(contextOptions(config));
      logger.info('TLS certificate files reloaded (HTTP)');
    } catch (err) {
      // A half-written pair (new cert, old key) fails here; the next change retries.
      logger.warn({ err }, 'TLS certificate files could not be loaded; keeping the previous ones');
    }
  };
  for (const f of files) watchFile(f, { interval: config.tlsReloadIntervalMs, persistent: false }, reload);
  return () => {
    for (const f of files) unwatchFile(f, reload);
  };
}

/** gRPC server credentials: insecure without --tls-cert; otherwise TLS from files that are watched for changes. */
export function grpcServerCredentials(config: TlsConfig): grpc.ServerCredentials {
  if (!config.tlsCert || !config.tlsKey) return grpc.ServerCredentials.createInsecure();
  contextOptions(config); // unreadable files fail at start, not silently in the watcher
  const provider = new grpc.experimental.FileWatcherCertificateProvider({
    certificateFile: config.tlsCert,
    privateKeyFile: config.tlsKey,
    ...(config.tlsCa ? { caCertificateFile: config.tlsCa } : {}),
    refreshIntervalMs: config.tlsReloadIntervalMs,
  });
  // grpc-js 1.14 hands its first argument to the identity slot and its second to
  // the CA slot (the declared names are the other way round): one provider that
  // watches all three files fills both; without a CA the second stays null.
  return grpc.experimental.createCertificateProviderServerCredentials(
    provider,
    config.tlsCa ? provider : null,
    config.tlsCa !== undefined,
  );
}
