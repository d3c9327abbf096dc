// MCP servers that misbehave on purpose, served by fixture-server.mjs. The SDK's low-level server
// sends whatever its handlers return; what it cannot send, the HTTP server answers itself (httpAnswer).
//   /hostile/listing/mcp  one tool list with every kind of bad tool next to two good ones
//   /hostile/results/mcp  results and errors of megabytes, a call that never answers, a result
//                         that breaks its output schema
//   /hostile/silent/mcp   takes requests and never answers any
//   /hostile/mute/mcp     connects, then never answers tools/list nor the end of the session
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js'

const OBJECT = { type: 'object', properties: {} }
const MB = 1024 * 1024

/** A schema whose property `a` holds a property `a` … `levels` deep, as JSON text (JSON.stringify overflows at 3,000). */
export function nestedSchemaJson(levels) {
  return `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`
}

/** Every tool here but `fine` and `echo` is bad on its own; the list as a whole is well formed. */
const HOSTILE_TOOLS = [
  { name: 'fine', description: 'A good tool', inputSchema: OBJECT },
  { name: 'dup', description: 'The first tool named dup', inputSchema: OBJECT },
  { name: 'dup', description: 'The second tool named dup', inputSchema: OBJECT },
  { name: 'required-not-a-list', description: 'required is a string', inputSchema: { type: 'object', required: 'a' } },
  { name: 'string-schema', description: 'The schema is not of an object', inputSchema: { type: 'string' } },
  { name: 'no-schema', description: 'No input schema at all' },
  { name: 42, description: 'A name that is not a string', inputSchema: OBJECT },
  null,
  { name: 'deep-300', description: 'A schema 300 levels deep', inputSchema: 'nested-300' },
  { name: 'deep-3000', description: 'A schema 3,000 levels deep', inputSchema: 'nested-3000' },
  { name: 'long-description', description: 'x'.repeat(200_000), inputSchema: OBJECT },
  {
    name: 'broken-output-schema',
    description: 'An output schema that is not one',
    inputSchema: OBJECT,
    outputSchema: { type: 'object', properties: { n: { type: 'integr' } } },
  },
  { name: 'echo', description: 'Named like a tool of the reference server', inputSchema: OBJECT },
]

const HOSTILE_LIST = JSON.stringify(HOSTILE_TOOLS)
  .replace('"nested-300"', nestedSchemaJson(300))
  .replace('"nested-3000"', nestedSchemaJson(3000))

function listingServer() {
  const server = new Server({ name: 'fixture-hostile-listing', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({
    content: [{ type: 'text', text: `${request.params.name} ran` }],
  }))
  return server
}

function resultsServer() {
  const server = new Server({ name: 'fixture-hostile-results', version: '1.0.0' }, { capabilities: { tools: {} } })
  const tools = ['huge-error', 'huge-rpc-error', 'huge-transport-error', 'never-answers', 'small'].map((name) => ({
    name,
    inputSchema: OBJECT,
  }))
  const numberOut = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }
  tools.push({ name: 'wrong-structure', inputSchema: OBJECT, outputSchema: numberOut })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    switch (request.params.name) {
      case 'huge-error':
        return { isError: true, content: [{ type: 'text', text: 'e'.repeat(2 * MB) }] }
      case 'huge-rpc-error':
        throw new McpError(-32000, 'r'.repeat(MB))
      case 'never-answers':
        return new Promise(() => {})
      case 'wrong-structure':
        return { content: [], structuredContent: { n: 'not a number' } }
      default:
        return { content: [{ type: 'text', text: 'small ran' }] }
    }
  })
  return server
}

export const hostileFactories = {
  '/hostile/listing/mcp': listingServer,
  '/hostile/results/mcp': resultsServer,
  '/hostile/mute/mcp': resultsServer,
  '/hostile/silent/mcp': resultsServer,
}

/**
 * What the HTTP server answers itself, before the MCP server sees a request: `'silent'` (the
 * request is held open, never answered), an answer, or undefined (the MCP server answers).
 */
export function httpAnswer(path, method, body) {
  if (path === '/hostile/silent/mcp') return 'silent'
  if (path === '/hostile/mute/mcp' && (method === 'DELETE' || body?.method === 'tools/list')) return 'silent'
  if (path === '/hostile/listing/mcp' && body?.method === 'tools/list') {
    const text = `{"jsonrpc":"2.0","id":${JSON.stringify(body.id)},"result":{"tools":${HOSTILE_LIST}}}`
    return { status: 200, type: 'application/json', text }
  }
  if (body?.method === 'tools/call' && body.params?.name === 'huge-transport-error')
    return { status: 500, type: 'text/plain', text: 't'.repeat(MB) }
  return undefined
}
