import type { ToolCallback } from '../core'
import { defineTool } from '../tools'
import { EventFilter, textOf } from './event-filter'
import type { SessionService } from './session-service'
import { SESSION_BRANCH_KEY, SESSION_ID_KEY } from './session'

export interface SessionEventToolsOptions {
  /** Results a page (default 10). */
  pageSize?: number
  /** The session searched when the request names none (default `'default'`). */
  defaultSessionId?: string
}

/**
 * Recall tools over a session's whole log (Spring AI's `SessionEventTools`): `conversation_search`
 * finds the messages with a keyword, those compaction took out of the model's view included, so the
 * model can look up what it no longer sees. The session is the request's (SessionMemoryAdvisor's
 * advisor param); a sub-agent searches its branch and the root conversation only.
 */
export function sessionEventTools(service: SessionService, options: SessionEventToolsOptions = {}): ToolCallback[] {
  const pageSize = options.pageSize ?? 10
  if (!Number.isSafeInteger(pageSize) || pageSize <= 0)
    throw new RangeError(`sessionEventTools pageSize must be a whole number above 0, got ${pageSize}`)
  const conversationSearch = defineTool({
    name: 'conversation_search',
    description:
      'Search the whole earlier conversation, messages no longer in view included, for a keyword (case-insensitive). Returns the matching messages oldest first, a page at a time.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'The keyword to look for.' },
        page: { type: 'integer', minimum: 0, description: 'The page of results, from 0 (default 0).' },
      },
      required: ['query'],
      additionalProperties: false,
    } as const,
    async execute({ query, page = 0 }, context) {
      const named = context.advisorContext[SESSION_ID_KEY]
      const sessionId = typeof named === 'string' && named !== '' ? named : (options.defaultSessionId ?? 'default')
      const branch = context.advisorContext[SESSION_BRANCH_KEY]
      if (!(await service.findById(sessionId))) return `No conversation '${sessionId}' to search.`
      let filter = EventFilter.keyword(query).merge(EventFilter.realOnly())
      if (typeof branch === 'string' && branch !== '') filter = filter.merge(EventFilter.branch(branch))
      const found = await service.getEvents(sessionId, filter)
      const results = found.slice(page * pageSize, (page + 1) * pageSize).map((event) => ({
        role: event.message.role,
        time: new Date(event.timestamp).toISOString(),
        text: textOf(event),
      }))
      if (results.length === 0)
        return found.length === 0
          ? `Nothing in the conversation mentions '${query}'.`
          : `No page ${page}: ${found.length} results.`
      return JSON.stringify({ results, page, pages: Math.ceil(found.length / pageSize) })
    },
  })
  return [conversationSearch]
}
