import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { PaginatedResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { isTimeout } from './connection'

const MAX_LIST_PAGES = 100

/**
 * The entries of a server's tool list as they came, every page read within `timeoutMs`. The SDK's
 * `listTools` parses the whole list at once, so one malformed tool rejected all of them; here only
 * the pages are parsed, through the SDK's own transport, and each tool is judged on its own after.
 */
export async function listedEntries(client: Client, timeoutMs: number): Promise<unknown[]> {
  const deadline = Date.now() + timeoutMs
  const entries: unknown[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const params = cursor === undefined ? {} : { cursor }
    const timeout = Math.max(deadline - Date.now(), 1)
    const result = await client
      .request({ method: 'tools/list', params }, PaginatedResultSchema, { timeout })
      .catch((error: unknown) => {
        throw isTimeout(error) ? new Error(`the list was not complete within ${timeoutMs} ms`) : error
      })
    const tools: unknown = result['tools']
    if (!Array.isArray(tools)) throw new Error(`its tools/list answer holds no list of tools (tools: ${typeof tools})`)
    entries.push(...(tools as unknown[]))
    cursor = result.nextCursor
    if (cursor === undefined) break
  }
  return entries
}
