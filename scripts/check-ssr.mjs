// Every entry of the built package imports in plain Node (no window, document or storage), the
// React entries carry 'use client' as their first statement, and they render on a server with
// react-dom/server: the devtools render nothing there (they mount in the page), useChat renders
// its state. Usage: node scripts/check-ssr.mjs   (needs `npm run build` first)
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createElement } from 'react'
import { prerenderToNodeStream } from 'react-dom/static'
import { packageEntries, root } from './entries.mjs'

const CLIENT_ENTRIES = new Set(['advisor-chain/devtools', 'advisor-chain/react'])
const problems = []
const loaded = {}

for (const entry of packageEntries()) {
  const file = join(root, entry.output)
  const code = readFileSync(file, 'utf8')
  const client = /^\s*["']use client["'];?/.test(code)
  if (CLIENT_ENTRIES.has(entry.specifier) !== client)
    problems.push(`${entry.output} ${client ? 'has' : 'lacks'} 'use client' as its first statement`)
  try {
    loaded[entry.specifier] = await import(pathToFileURL(file).href)
  } catch (error) {
    problems.push(`${entry.specifier} does not import in Node: ${error?.message ?? error}`)
  }
}

const root_ = loaded['advisor-chain']
const devtools = loaded['advisor-chain/devtools']
const react = loaded['advisor-chain/react']
if (root_ && devtools && react) {
  const store = devtools.createDevtoolsStore()
  const client = root_.ChatClient.create(new root_.ScriptedChatModel(['hi']))
  function Chat() {
    const chat = react.useChat(client)
    return createElement('p', null, `${chat.status}, ${chat.messages.length} messages`)
  }
  const renders = {
    AdvisorDevtools: createElement(devtools.AdvisorDevtools, { store, enabled: true }),
    AdvisorDevtoolsPanel: createElement(devtools.AdvisorDevtoolsPanel, { store, enabled: true }),
    useChat: createElement(Chat),
  }
  for (const [name, element] of Object.entries(renders)) {
    try {
      const html = await serverRender(element)
      if (name.startsWith('Advisor') && html !== '')
        problems.push(`${name} rendered on the server: ${html.slice(0, 80)}`)
      if (name === 'useChat' && !html.includes('idle, 0 messages')) problems.push(`useChat rendered ${html}`)
    } catch (error) {
      problems.push(`${name} does not render on a server: ${error?.message ?? error}`)
    }
  }
}

/** The element as a server renders it for a page, everything loaded that it would load (lazy parts too). */
async function serverRender(element) {
  const errors = []
  const { prelude } = await prerenderToNodeStream(element, { onError: (error) => errors.push(error) })
  let html = ''
  for await (const chunk of prelude) html += chunk
  if (errors.length > 0) throw errors[0]
  return html
}

if (problems.length > 0) {
  console.error(`✖ server rendering:\n  ${problems.join('\n  ')}`)
  process.exit(1)
}
console.log(`every entry imports in Node, and the React entries render on a server`)
