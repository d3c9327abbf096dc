import { ObserverAdvisor } from '../advisors'
import { agentClientOf } from './agent-tool'
import { ChatClient } from './client'

/**
 * The client a sub-agent's run was made by: down `path` (the agent tools' names, outermost first)
 * from the app's client, through each client's agent tools. A sub-agent without an observer of its
 * own gets the nearest one above it (the one that recorded its run). Throws, naming the step, when
 * a name is no agent tool of the client above it.
 */
export function agentAt(
  client: ChatClient,
  path: readonly string[],
): { agent: ChatClient; observer?: ObserverAdvisor } {
  let agent = client
  let observer: ObserverAdvisor | undefined
  for (const name of path) {
    const defaults = ChatClient.defaultsOf(agent)
    observer = defaults.advisors.find((advisor) => advisor instanceof ObserverAdvisor) ?? observer
    const tool = defaults.tools.find((candidate) => candidate.definition.name === name)
    const next = tool && agentClientOf(tool)
    if (!next) throw new Error(`'${name}' is not an agent tool of the client`)
    agent = next
  }
  const own = ChatClient.defaultsOf(agent).advisors.some((advisor) => advisor instanceof ObserverAdvisor)
  return own || !observer ? { agent } : { agent, observer }
}
