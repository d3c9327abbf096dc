import { describe, expect, it } from 'vitest'
import { BuilderOptions } from './builder-options'

class Builder {
  readonly #options = new BuilderOptions<{ order?: number; name?: string }, this>(this)
  order(order: number): this {
    return this.#options.set('order', order)
  }
  name(name: string): this {
    return this.#options.set('name', name)
  }
  build() {
    return this.#options.values()
  }
}

describe('the options of an advisor builder', () => {
  it('are set one a method, each returning the builder, and built as they were set', () => {
    const builder = new Builder()
    expect(builder.order(5)).toBe(builder)
    expect(builder.name('a').order(7).build()).toEqual({ order: 7, name: 'a' })
  })

  it('are copied at each build: a later setting leaves an earlier build alone', () => {
    const builder = new Builder().order(1)
    const first = builder.build()
    builder.order(2)
    expect([first, builder.build()]).toEqual([{ order: 1 }, { order: 2 }])
  })
})
