import { defineTool } from '../../tools'

/** A tool named 'slow' that runs until `release` is called or its signal aborts, and says when it started. */
export function heldTool() {
  let started!: () => void
  const running = new Promise<void>((resolve) => (started = resolve))
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const tool = defineTool({
    name: 'slow',
    description: 'Takes its time',
    inputSchema: { type: 'object' },
    execute: async (_args, context) => {
      started()
      await Promise.race([
        released,
        new Promise((_, reject) =>
          context.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
        ),
      ])
      return 'done'
    },
  })
  return { tool, running, release }
}
