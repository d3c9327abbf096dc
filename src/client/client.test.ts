import { describe, expect, it } from 'vitest'
import {
  HIGHEST_PRECEDENCE,
  type CallAdvisor,
  type ChatClientResponse,
  type StreamAdvisor,
  assistantMessage,
  RUN_ID_KEY,
  userMessage,
} from '../core'
import { ChatClient } from './client'
import { ScriptedChatModel } from '../models'

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of iterable) items.push(item)
  return items
}

function contextSpy(seen: Record<string, unknown>[]): CallAdvisor {
  return {
    name: 'context-spy',
    order: HIGHEST_PRECEDENCE + 1,
    adviseCall: (req, chain) => {
      seen.push({ ...req.context })
      return chain.nextCall(req)
    },
  }
}

describe('ChatClient', () => {
  it('builds messages in the order system, explicit messages, user text', async () => {
    const model = new ScriptedChatModel(['ok'])
    const client = ChatClient.builder(model).defaultSystem('be brief').build()
    await client
      .prompt()
      .messages(userMessage('earlier'), assistantMessage('earlier answer'))
      .user('now')
      .call()
      .content()
    expect(model.prompts[0]!.messages.map((m) => m.role + ':' + ('text' in m ? m.text : ''))).toEqual([
      'system:be brief',
      'user:earlier',
      'assistant:earlier answer',
      'user:now',
    ])
  })

  it('keeps a call as it was when .call() or .stream() was asked, whatever its request or client is given later', async () => {
    const model = new ScriptedChatModel(['first', 'second', 'third', 'fourth'])
    const client = ChatClient.create(model)
    const request = client.prompt('one')
    const first = request.call()
    const streamed = request.stream()
    request.user('two').messages(userMessage('extra')).advisorParams({ late: true })
    const second = request.call()
    await first.content()
    await collect(streamed.content())
    await second.content()
    // The client's defaults are not the prompt's to change.
    await client.prompt('three').call().content()
    const texts = model.prompts.map((prompt) => prompt.messages.map((m) => ('text' in m ? m.text : '')))
    expect(texts).toEqual([['one'], ['one'], ['extra', 'two'], ['three']])
  })

  it('lets a prompt replace the default system text', async () => {
    const model = new ScriptedChatModel(['ok'])
    await ChatClient.builder(model).defaultSystem('default').build().prompt('q').system('special').call().content()
    expect(model.prompts[0]!.messages[0]).toEqual({ role: 'system', text: 'special' })
  })

  it('starts the advisor context as a copy of the advisor params, with the run id the chain minted', async () => {
    const seen: Record<string, unknown>[] = []
    const params = { tenant: 'acme' }
    const client = ChatClient.builder(new ScriptedChatModel(['a']))
      .defaultAdvisorParams(params)
      .defaultAdvisors(contextSpy(seen))
      .build()
    await client.prompt('q').advisorParams({ user: 'ann' }).call().content()
    expect(seen).toEqual([{ tenant: 'acme', user: 'ann', [RUN_ID_KEY]: seen[0]![RUN_ID_KEY] }])
    expect(typeof seen[0]![RUN_ID_KEY]).toBe('string')
    expect(params).toEqual({ tenant: 'acme' })
  })

  it('merges default and prompt options, the prompt winning', async () => {
    const model = new ScriptedChatModel(['ok'])
    const client = ChatClient.builder(model).defaultOptions({ temperature: 0.1, maxTokens: 5 }).build()
    await client.prompt('q').options({ temperature: 0.9 }).call().content()
    expect(model.prompts[0]!.options).toMatchObject({ temperature: 0.9, maxTokens: 5 })
  })

  it('call().content() returns the text of the first generation', async () => {
    const client = ChatClient.create(new ScriptedChatModel(['Hello there']))
    expect(await client.prompt('hi').call().content()).toBe('Hello there')
  })

  it('call().chatResponse() returns the model response with its metadata', async () => {
    const usage = { promptTokens: 3, completionTokens: 2, totalTokens: 5 }
    const client = ChatClient.create(new ScriptedChatModel([{ text: 'x', usage }]))
    const response = await client.prompt('hi').call().chatResponse()
    expect(response?.metadata.usage).toEqual(usage)
    expect(response?.results[0]?.metadata.finishReason).toBe('stop')
  })

  it('call().chatClientResponse() returns the response with the advisor context', async () => {
    const stamp: CallAdvisor = {
      name: 'stamp',
      order: 0,
      adviseCall: async (req, chain) => {
        const response = await chain.nextCall({ ...req, context: { ...req.context, stamped: true } })
        return response
      },
    }
    const client = ChatClient.builder(new ScriptedChatModel(['x']))
      .defaultAdvisors(stamp)
      .build()
    const response = await client.prompt('hi').call().chatClientResponse()
    expect(response.context).toMatchObject({ stamped: true })
    expect(response.chatResponse?.results[0]?.output.text).toBe('x')
  })

  it('content() is null when an advisor answers without a response', async () => {
    const short: CallAdvisor = {
      name: 'short',
      order: 0,
      adviseCall: async (req) => ({ chatResponse: null, context: req.context }),
    }
    const client = ChatClient.builder(new ScriptedChatModel([])).defaultAdvisors(short).build()
    expect(await client.prompt('hi').call().content()).toBeNull()
  })

  it('runs terminal advisors named call and stream last', async () => {
    const seen: string[][] = []
    const spy: CallAdvisor & StreamAdvisor = {
      name: 'spy',
      order: 2147483647,
      adviseCall: (req, chain) => {
        seen.push(chain.callAdvisors.map((a) => a.name))
        return chain.nextCall(req)
      },
      adviseStream: (req, chain) => {
        seen.push(chain.streamAdvisors.map((a) => a.name))
        return chain.nextStream(req)
      },
    }
    const client = ChatClient.builder(new ScriptedChatModel(['a', 'b']))
      .defaultAdvisors(spy)
      .build()
    await client.prompt('q').call().content()
    await collect(client.prompt('q').stream().content())
    expect(seen).toEqual([
      ['spy', 'call'],
      ['spy', 'stream'],
    ])
  })

  it('stream().content() yields the text deltas in order', async () => {
    const client = ChatClient.create(
      new ScriptedChatModel([{ text: 'one two three', chunks: ['one', ' two', ' three'] }]),
    )
    expect(await collect(client.prompt('q').stream().content())).toEqual(['one', ' two', ' three'])
  })

  it('stream().chatResponse() yields every chunk with the final one carrying the finish reason', async () => {
    const client = ChatClient.create(new ScriptedChatModel([{ text: 'a b' }]))
    const chunks = await collect(client.prompt('q').stream().chatResponse())
    expect(chunks.map((c) => c.results[0]!.output.text)).toEqual(['a ', 'b'])
    expect(chunks.at(-1)!.results[0]!.metadata.finishReason).toBe('stop')
  })

  it('stream().chatClientResponse() carries the advisor context on each chunk', async () => {
    const client = ChatClient.create(new ScriptedChatModel([{ text: 'a b' }]))
    const chunks = await collect(client.prompt('q').advisorParams({ k: 1 }).stream().chatClientResponse())
    expect(chunks.every((c) => c.context['k'] === 1)).toBe(true)
  })

  it('call() and stream() never throw; errors reject the result', async () => {
    const client = ChatClient.builder(new ScriptedChatModel([])).defaultAdvisors({ name: 'broken', order: 0 }).build()
    const spec = client.prompt('q')
    const call = spec.call()
    const stream = spec.stream()
    await expect(call.content()).rejects.toThrow(TypeError)
    await expect(collect(stream.content())).rejects.toThrow(/broken/)
  })

  it('surfaces a model error from call()', async () => {
    const client = ChatClient.create(new ScriptedChatModel([{ error: 'provider down' }]))
    await expect(client.prompt('q').call().content()).rejects.toThrow('provider down')
  })

  it('surfaces a model error in the middle of a stream after the earlier deltas', async () => {
    const client = ChatClient.create(new ScriptedChatModel([{ text: 'a b c', error: 'cut', failAfterChunks: 2 }]))
    const seen: string[] = []
    await expect(
      (async () => {
        for await (const delta of client.prompt('q').stream().content()) seen.push(delta)
      })(),
    ).rejects.toThrow('cut')
    expect(seen).toEqual(['a ', 'b '])
  })
})

describe('ChatClient abort', () => {
  it('rejects with an AbortError when the signal is aborted before the call', async () => {
    const model = new ScriptedChatModel(['never'])
    const controller = new AbortController()
    controller.abort()
    const result = ChatClient.create(model).prompt('q').signal(controller.signal).call().content()
    await expect(result).rejects.toMatchObject({ name: 'AbortError' })
    expect(model.prompts).toHaveLength(0)
  })

  it('rejects with an AbortError when aborted during a call', async () => {
    const controller = new AbortController()
    const result = ChatClient.create(new ScriptedChatModel([{ text: 'slow', delayMs: 10_000 }]))
      .prompt('q')
      .signal(controller.signal)
      .call()
      .content()
    setTimeout(() => controller.abort(), 5)
    await expect(result).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('settles a call even when an advisor ignores the signal', async () => {
    const controller = new AbortController()
    const deaf: CallAdvisor = { name: 'deaf', order: 0, adviseCall: () => new Promise<ChatClientResponse>(() => {}) }
    const result = ChatClient.builder(new ScriptedChatModel([]))
      .defaultAdvisors(deaf)
      .build()
      .prompt('q')
      .signal(controller.signal)
      .call()
      .content()
    controller.abort()
    await expect(result).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('rejects with an AbortError when aborted during a stream, after the deltas already read', async () => {
    const controller = new AbortController()
    const client = ChatClient.create(new ScriptedChatModel([{ text: 'a b c d e', delayMs: 20 }]))
    const seen: string[] = []
    const read = (async () => {
      for await (const delta of client.prompt('q').signal(controller.signal).stream().content()) {
        seen.push(delta)
        if (seen.length === 2) controller.abort()
      }
    })()
    await expect(read).rejects.toMatchObject({ name: 'AbortError' })
    expect(seen).toEqual(['a ', 'b '])
  })

  it('settles a stream even when the stream ignores the signal', async () => {
    const controller = new AbortController()
    const stuck: StreamAdvisor = {
      name: 'stuck',
      order: 0,
      adviseStream: () => ({
        [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<ChatClientResponse>>(() => {}) }),
      }),
    }
    const client = ChatClient.builder(new ScriptedChatModel([])).defaultAdvisors(stuck).build()
    const read = collect(client.prompt('q').signal(controller.signal).stream().content())
    setTimeout(() => controller.abort(), 5)
    await expect(read).rejects.toMatchObject({ name: 'AbortError' })
  })
})

describe('ChatClient chains', () => {
  const chainSpy = (chains: unknown[]): CallAdvisor => ({
    name: 'chain-spy',
    order: HIGHEST_PRECEDENCE + 1,
    adviseCall: (req, chain) => {
      chains.push(chain)
      return chain.nextCall(req)
    },
  })

  it('reuses the chain while the advisors are the same, concurrent calls included', async () => {
    const chains: unknown[] = []
    const client = ChatClient.builder(new ScriptedChatModel(['a', 'b', 'c', 'd']))
      .defaultAdvisors(chainSpy(chains))
      .build()
    const answers = await Promise.all([client.prompt('1').call().content(), client.prompt('2').call().content()])
    expect(answers.sort()).toEqual(['a', 'b'])
    await client.prompt('3').call().content()
    expect(new Set(chains).size).toBe(1)
    // Another advisor on one request makes another chain; the defaults get theirs again after it.
    const extra: CallAdvisor = { name: 'extra', order: 0, adviseCall: (req, chain) => chain.nextCall(req) }
    await client.prompt('4').advisors(extra).call().content()
    expect(new Set(chains).size).toBe(2)
  })

  it('gives each client its own chain and tool advisor state', async () => {
    const chains: unknown[] = []
    const spy = chainSpy(chains)
    const first = ChatClient.builder(new ScriptedChatModel(['x']))
      .defaultAdvisors(spy)
      .build()
    const second = ChatClient.builder(new ScriptedChatModel(['y']))
      .defaultAdvisors(spy)
      .build()
    expect(await first.prompt('q').call().content()).toBe('x')
    expect(await second.prompt('q').call().content()).toBe('y')
    expect(chains[0]).not.toBe(chains[1])
  })
})
