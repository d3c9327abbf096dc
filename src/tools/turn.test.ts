import { describe, expect, it } from 'vitest'
import type { ToolCall } from '../core'
import { jsonFingerprint } from './json-fingerprint'
import { TurnLedger } from './turn'

const call = (args: string, name = 'search'): ToolCall => ({ id: 'c', name, arguments: args })

describe('TurnLedger: identical calls', () => {
  it('counts calls with the same meaning as one, however their arguments are spelled', () => {
    const ledger = new TurnLedger()
    expect(ledger.countCall(call('{"a":1,"b":[true,null,"x"]}'))).toBe(1)
    expect(ledger.countCall(call('{ "b": [true, null, "x"], "a": 1.0 }'))).toBe(2)
    expect(ledger.countCall(call('{"b":[true,null,"x"],"a":1e0}'))).toBe(3)
    expect(ledger.countCall(call('{"a":1,"b":[null,true,"x"]}'))).toBe(1)
    expect(ledger.countCall(call('{"a":1,"b":[true,null,"x"]}', 'other'))).toBe(1)
  })

  it('takes no arguments as {}, and text that is not JSON as it is', () => {
    const ledger = new TurnLedger()
    expect(ledger.countCall(call(''))).toBe(1)
    expect(ledger.countCall(call('  {} '))).toBe(2)
    expect(ledger.countCall(call('{oops'))).toBe(1)
    expect(ledger.countCall(call('{oops'))).toBe(2)
    expect(ledger.countCall(call('{oops '))).toBe(1)
  })

  it('keeps calls apart whose fingerprints meet but whose arguments differ', () => {
    const seen = new Map<number, string>()
    let pair: [string, string] | undefined
    for (let i = 0; !pair; i++) {
      const args = JSON.stringify({ q: `term ${i}` })
      const fingerprint = jsonFingerprint(JSON.parse(args))
      const earlier = seen.get(fingerprint)
      if (earlier) pair = [earlier, args]
      else seen.set(fingerprint, args)
    }
    const ledger = new TurnLedger()
    expect(ledger.countCall(call(pair[0]))).toBe(1)
    expect(ledger.countCall(call(pair[1]))).toBe(1)
    expect(ledger.countCall(call(pair[1]))).toBe(2)
    expect(ledger.countCall(call(pair[0]))).toBe(2)
  })

  it('survives arguments nested past any depth', () => {
    const ledger = new TurnLedger()
    const deep = '['.repeat(5000) + ']'.repeat(5000)
    expect(ledger.countCall(call(deep))).toBe(1)
    expect(ledger.countCall(call(deep))).toBe(2)
  })
})
