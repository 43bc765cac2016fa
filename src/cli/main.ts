#!/usr/bin/env node
// The `xdshub` binary: dispatches to a command. Exit codes: 0 ok, 1 failure,
// 2 usage error (unknown command or bad flag).
import pkg from '../../package.json';

const USAGE = `usage: xdshub <command> [flags]

commands:
  serve       run the hub (HTTP API, Subscribe and xDS)
  subscribe   stream events from a hub's Subscribe API
  envoy bootstrap   print an Envoy bootstrap that connects an Envoy to the hub

operator commands (docs/operator-tools.md, "CLI"; -http-addr/CONSUL_HTTP_ADDR, -token/CONSUL_HTTP_TOKEN):
  proxy-status      every connected node: per type synced / stale / NACKED, last ACK, rollout hold
  proxy-config NODE clusters|listeners|routes|endpoints|secrets [--at INDEX] [-o table|json|yaml]
  history NODE      the node's pushes and its ACK/NACK to each
  rollout list|show|proceed|rollback [ID]
  dry-run FILE      what each xDS node would get from a change given as a file (alias: diff)
  analyze [FILE...] check the live state or files for mistakes a client would reject (docs/analyze.md)
  translate --node SPEC FILE...  the xDS resources each node would get from files, offline

flags of serve (each also from an XDSHUB_* environment variable):
  --http-port 8500  --grpc-port 8502  --bind 127.0.0.1  --data-dir ./data
  --store sqlite|memory|redis://host:port  --log-level info  --node-name <host>
  --datacenter dc1  (xdshub serve --help lists every flag)

  xdshub --help | --version`;

interface CommandModule {
  run(argv: string[], env: Record<string, string | undefined>): Promise<number>;
}

export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve': {
      // Loaded on demand so `--help` and other commands don't pay for the hub's imports.
      const { run } = require('./serve') as typeof import('./serve');
      return run(rest, env);
    }
    case 'subscribe': {
      const { run } = require('./subscribe') as CommandModule;
      return run(rest, env);
    }
    case 'envoy': {
      const { run } = require('./envoy') as CommandModule;
      return run(rest, env);
    }
    case 'dry-run':
    case 'diff': {
      const { run } = require('./dry-run') as CommandModule;
      return run(rest, env);
    }
    case 'proxy-status':
    case 'proxy-config':
    case 'history':
    case 'rollout': {
      const { run } = require(`./${command}`) as CommandModule;
      return run(rest, env);
    }
    case 'analyze':
      return (require('./analyze') as typeof import('./analyze')).main(rest, env);
    case 'translate':
      return (require('./translate') as typeof import('./translate')).main(rest);
    case '--version':
    case 'version':
      process.stdout.write(`${pkg.version}\n`);
      return 0;
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case undefined:
      process.stderr.write(`${USAGE}\n`);
      return 2;
    default:
      process.stderr.write(`xdshub: unknown command "${command}"\n${USAGE}\n`);
      return 2;
  }
}

if (require.main === module) {
  main(process.argv.slice(2), process.env).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`xdshub: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
