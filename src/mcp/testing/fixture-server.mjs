// MCP servers for what the reference server cannot show, built with the official SDK's server:
//   /mcp           a tool list that changes while a session runs (`add-tool` registers a tool)
//   /malformed/mcp a tool list with a malformed input schema and a name no model API accepts
//   /not-mcp       an ordinary web page
//   /hostile/…     servers that misbehave on purpose (hostile-servers.mjs)
// Usage: PORT=<port> node fixture-server.mjs   (prints "listening on <port>" when ready)
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { hostileFactories, httpAnswer } from './hostile-servers.mjs'

// What a page on another origin needs to talk to an MCP server.
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers':
    'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id',
  'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version',
}

function changingServer() {
  const server = new McpServer({ name: 'fixture-changing', version: '1.0.0' })
  server.registerTool(
    'add-tool',
    { description: 'Adds a tool to this server', inputSchema: { name: z.string() } },
    async ({ name }) => {
      server.registerTool(name, { description: `A tool added at run time: ${name}` }, async () => ({
        content: [{ type: 'text', text: `${name} ran` }],
      }))
      return { content: [{ type: 'text', text: `added ${name}` }] }
    },
  )
  return server.server
}

function malformedServer() {
  const server = new Server({ name: 'fixture-malformed', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: 'fine', description: 'A tool with a good schema', inputSchema: { type: 'object', properties: {} } },
      {
        name: 'misspelt',
        description: 'A tool whose schema has a type no validator knows',
        inputSchema: { type: 'object', properties: { count: { type: 'integr' } } },
      },
      { name: 'has.dot', description: 'A name model APIs refuse', inputSchema: { type: 'object' } },
    ],
  }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({
    content: [{ type: 'text', text: `${request.params.name} ran` }],
  }))
  return server
}

const factories = { '/mcp': changingServer, '/malformed/mcp': malformedServer, ...hostileFactories }
const sessions = new Map()

async function bodyOf(request) {
  if (request.method !== 'POST') return undefined
  let text = ''
  for await (const chunk of request) text += chunk
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

async function handleMcp(path, request, response) {
  const body = await bodyOf(request)
  const answer = httpAnswer(path, request.method, body)
  // Held open, never answered: what a hung server looks like to a client.
  if (answer === 'silent') return
  if (answer) {
    response.writeHead(answer.status, { ...CORS, 'content-type': answer.type }).end(answer.text)
    return
  }
  const sessionId = request.headers['mcp-session-id']
  let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined
  if (!transport) {
    if (sessionId || request.method !== 'POST') {
      response.writeHead(404, { ...CORS, 'content-type': 'application/json' })
      response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }))
      return
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, transport),
      onsessionclosed: (id) => sessions.delete(id),
    })
    await factories[path]().connect(transport)
  }
  await transport.handleRequest(request, response, body)
}

const http = createServer((request, response) => {
  const path = (request.url ?? '/').split('?')[0]
  for (const [name, value] of Object.entries(CORS)) response.setHeader(name, value)
  if (request.method === 'OPTIONS') {
    response.writeHead(204).end()
  } else if (path in factories) {
    handleMcp(path, request, response).catch((error) => {
      console.error(error)
      if (!response.headersSent) response.writeHead(500).end()
    })
  } else {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Not MCP</title><p>Hello')
  }
})

http.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`listening on ${http.address().port}`)
})
