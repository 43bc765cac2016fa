// /v1/txn: Node, Service and Check operations applied as one command, all or none.
import type { FastifyInstance } from 'fastify';
import type { HttpContext } from '../context';
import { sendJson, sendText } from '../reply';
import { TooManyOps, txnCommand } from '../translate/txn';
import { authorizeWrite, submit } from '../write';
import { policy } from '../route-policy';

export function txnRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const defaults = { datacenter: ctx.config.datacenter };
  app.put('/v1/txn', policy.write, async (req, reply) => {
    let command: ReturnType<typeof txnCommand>;
    try {
      command = txnCommand(req.body, defaults, ctx.config.limits.txnMaxOps);
    } catch (err) {
      // Consul answers an oversized transaction with 413.
      if (err instanceof TooManyOps) return sendText(reply, 413, err.message);
      throw err;
    }
    authorizeWrite(ctx, req, command);
    const result = await submit(ctx, reply, command);
    if (result.ok) return sendJson(reply, { Results: result.txnResults ?? [], Errors: null });
    const errors = result.txnErrors ?? [{ OpIndex: 0, What: result.error?.message ?? 'transaction refused' }];
    return sendJson(reply, { Results: null, Errors: errors }, 409);
  });
}
