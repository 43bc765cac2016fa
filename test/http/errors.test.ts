// The shared error handler: HubError → its status, fastify schema validation →
// 400 naming the field, other 4xx kept, anything else 500; bodies are text.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { HubError, invalid } from '../../src/errors';
import { fieldFromInstancePath, installErrorHandler } from '../../src/http/errors';

test('instance paths become field paths', () => {
  assert.equal(fieldFromInstancePath('/Service/Port'), 'Service.Port');
  assert.equal(fieldFromInstancePath('/Checks/0/TTL'), 'Checks[0].TTL');
  assert.equal(fieldFromInstancePath(''), '');
});

test('each kind of error gets its status and a plain-text message', async () => {
  const app = Fastify();
  installErrorHandler(app);
  app.put(
    '/schema',
    {
      schema: {
        body: {
          type: 'object',
          required: ['Name'],
          properties: {
            Name: { type: 'string' },
            Service: { type: 'object', properties: { Port: { type: 'integer' } } },
          },
        },
      },
    },
    async () => 'ok',
  );
  app.get('/invalid', async () => {
    throw invalid('Service.Port', 'must be an integer');
  });
  app.get('/conflict', async () => {
    throw new HubError('CONFLICT', 'index moved');
  });
  app.get('/closing', async () => {
    throw new HubError('SHUTTING_DOWN', 'hub is shutting down');
  });
  app.get('/boom', async () => {
    throw new Error('boom');
  });
  try {
    const typed = await app.inject({
      method: 'PUT',
      url: '/schema',
      payload: { Name: 'x', Service: { Port: 'eighty' } },
    });
    assert.equal(typed.statusCode, 400);
    assert.equal(typed.body, 'Service.Port: must be integer');
    const missing = await app.inject({ method: 'PUT', url: '/schema', payload: {} });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.body, 'Name: is required');
    const cases: Array<[string, number, string]> = [
      ['/invalid', 400, 'Service.Port: must be an integer'],
      ['/conflict', 409, 'index moved'],
      ['/closing', 503, 'hub is shutting down'],
      ['/boom', 500, 'boom'],
      ['/nowhere', 404, 'GET /nowhere: no page or endpoint of this hub'],
      [
        '/v1/kv/x',
        501,
        `GET /v1/kv/x: ${'this endpoint is not served by this hub (docs/http-api.md lists those it serves)'}`,
      ],
      ['/schema', 405, 'method GET not allowed'],
    ];
    for (const [url, status, text] of cases) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, status, url);
      assert.equal(res.body, text, url);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
    }
  } finally {
    await app.close();
  }
});
