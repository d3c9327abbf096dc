// The conversations bench/token-estimate.bench.ts counts: one trip-planning chat with a tool round,
// written in English, Chinese, Japanese and Korean (tool names and JSON keys stay English, as apps
// write them).
import type { Message } from '../src'

interface Script {
  system: string
  turns: Array<{ user: string; city: string; result: string; answer: string }>
}

const SCRIPTS: Record<'en' | 'zh' | 'ja' | 'ko', Script> = {
  en: {
    system:
      'You are a travel assistant. Answer briefly and politely, use the weather tool for forecasts, and say when you are not sure.',
    turns: [
      {
        user: "I'm going to Oslo next week for a conference. What should I pack, and will it rain?",
        city: 'Oslo',
        result: 'Light rain on Monday and Tuesday, dry and cloudy later in the week. Highs of 4 °C, lows of -2 °C.',
        answer:
          'Expect cold, damp days: highs around 4 °C and frost at night. Pack a warm waterproof jacket, a sweater, gloves and shoes that can handle wet streets. Monday and Tuesday look rainy, so keep an umbrella in your bag; the rest of the week should stay dry.',
      },
      {
        user: 'After the conference I have two free days. Is a day trip to Bergen by train a good idea in November?',
        city: 'Bergen',
        result: 'Heavy rain all week, strong wind on the coast, 6 °C. Daylight from 8:30 to 16:00.',
        answer:
          'The Bergen railway is one of the most beautiful train rides in Europe, but it takes about seven hours each way, so it is too long for a day trip. Bergen itself will be wet and windy. If you want to go, stay one night there and take the morning train back; otherwise a fjord cruise from Oslo is an easier choice.',
      },
      {
        user: 'Thanks! Can you summarise the plan in three short points so I can send it to my colleague?',
        city: 'Oslo',
        result: 'No change: light rain early in the week, dry later.',
        answer:
          '1. Conference in Oslo: pack for rain and cold (4 °C, frost at night). 2. Bergen by train: one night there rather than a day trip, expect heavy rain. 3. Back in Oslo on Thursday, when the weather should be dry and cloudy.',
      },
    ],
  },
  zh: {
    system: '你是一名旅行助手。请简短而礼貌地回答，查询天气时使用天气工具，不确定时要说明。',
    turns: [
      {
        user: '我下周要去奥斯陆参加一个会议。我应该带些什么？会下雨吗？',
        city: 'Oslo',
        result: '周一和周二有小雨，本周晚些时候干燥多云。最高气温4度，最低气温零下2度。',
        answer:
          '天气会比较冷而且潮湿：白天最高约4度，夜里会结霜。请带一件保暖防水的外套、一件毛衣、手套，以及适合湿滑街道的鞋子。周一和周二可能下雨，所以包里最好放一把伞；这周剩下的日子应该比较干燥。',
      },
      {
        user: '会议结束后我有两天空闲时间。十一月坐火车去卑尔根一日游是个好主意吗？',
        city: 'Bergen',
        result: '整周大雨，沿海风大，气温6度。白天从早上八点半到下午四点。',
        answer:
          '卑尔根铁路是欧洲最美的火车线路之一，但单程大约需要七个小时，所以一日游时间太长了。卑尔根本身也会又湿又冷、风很大。如果你想去，最好在那里住一晚，第二天早上再坐火车回来；否则从奥斯陆出发的峡湾游船是更轻松的选择。',
      },
      {
        user: '谢谢！你能把计划总结成三个简短的要点吗？我想发给我的同事。',
        city: 'Oslo',
        result: '没有变化：本周前几天有小雨，之后干燥。',
        answer:
          '一、在奥斯陆开会：准备好防雨防寒的衣物（白天4度，夜里结霜）。二、坐火车去卑尔根：最好住一晚而不是一日游，预计会有大雨。三、周四回到奥斯陆，那时天气应该干燥多云。',
      },
    ],
  },
  ja: {
    system:
      'あなたは旅行アシスタントです。短く丁寧に答え、天気予報には天気ツールを使い、確信がないときはそう伝えてください。',
    turns: [
      {
        user: '来週、会議のためにオスロへ行きます。何を持っていけばいいですか？雨は降りますか？',
        city: 'Oslo',
        result: '月曜日と火曜日は小雨、週の後半は乾燥して曇り。最高気温4度、最低気温マイナス2度。',
        answer:
          '寒くて湿った日が続きそうです。日中の最高気温は4度前後で、夜は霜が降ります。暖かい防水のジャケット、セーター、手袋、濡れた道でも歩きやすい靴を持っていきましょう。月曜日と火曜日は雨になりそうなので、かばんに傘を入れておくと安心です。週の残りは晴れ間はなくても乾いた天気になるでしょう。',
      },
      {
        user: '会議のあと、二日間自由な時間があります。十一月に電車でベルゲンへ日帰り旅行するのはいい考えですか？',
        city: 'Bergen',
        result: '一週間を通して大雨、沿岸部は強風、気温6度。日照時間は8時半から16時まで。',
        answer:
          'ベルゲン鉄道はヨーロッパでもっとも美しい路線のひとつですが、片道でおよそ7時間かかるので、日帰りには長すぎます。ベルゲンの町も雨と風が強いでしょう。行くなら一泊して、翌朝の電車で戻るのがおすすめです。そうでなければ、オスロから出るフィヨルドのクルーズのほうが気軽です。',
      },
      {
        user: 'ありがとうございます！同僚に送りたいので、計画を三つの短いポイントにまとめてもらえますか？',
        city: 'Oslo',
        result: '変更なし：週の前半は小雨、その後は乾燥。',
        answer:
          '1. オスロでの会議：雨と寒さに備える（日中4度、夜は霜）。2. 電車でベルゲンへ：日帰りではなく一泊する、大雨の予報。3. 木曜日にオスロへ戻る、天気は乾燥して曇りの見込み。',
      },
    ],
  },
  ko: {
    system:
      '당신은 여행 도우미입니다. 짧고 정중하게 답하고, 일기 예보에는 날씨 도구를 사용하며, 확실하지 않을 때는 그렇다고 말하세요.',
    turns: [
      {
        user: '다음 주에 회의 때문에 오슬로에 가요. 무엇을 챙겨야 하고, 비가 올까요?',
        city: 'Oslo',
        result: '월요일과 화요일에는 약한 비, 주 후반에는 건조하고 흐림. 최고 기온 4도, 최저 기온 영하 2도.',
        answer:
          '춥고 습한 날씨가 예상됩니다. 낮 최고 기온은 4도 정도이고 밤에는 서리가 내립니다. 따뜻한 방수 재킷, 스웨터, 장갑, 그리고 젖은 길에서도 편한 신발을 챙기세요. 월요일과 화요일에는 비가 올 것 같으니 가방에 우산을 넣어 두세요. 나머지 날들은 건조할 것입니다.',
      },
      {
        user: '회의가 끝나고 이틀 동안 시간이 있어요. 11월에 기차로 베르겐 당일치기 여행을 가는 건 좋은 생각일까요?',
        city: 'Bergen',
        result: '한 주 내내 많은 비, 해안에는 강한 바람, 기온 6도. 낮 시간은 8시 30분부터 16시까지.',
        answer:
          '베르겐 철도는 유럽에서 가장 아름다운 기차 노선 중 하나이지만, 편도로 약 일곱 시간이 걸리기 때문에 당일치기로는 너무 깁니다. 베르겐 시내도 비가 많이 오고 바람이 강할 것입니다. 가고 싶다면 그곳에서 하룻밤 묵고 다음 날 아침 기차로 돌아오는 것이 좋습니다. 그렇지 않다면 오슬로에서 출발하는 피오르 유람선이 더 편한 선택입니다.',
      },
      {
        user: '고마워요! 동료에게 보낼 수 있게 계획을 짧은 세 가지 요점으로 정리해 줄 수 있나요?',
        city: 'Oslo',
        result: '변경 없음: 주 초반에는 약한 비, 이후에는 건조.',
        answer:
          '1. 오슬로 회의: 비와 추위에 대비하기 (낮 4도, 밤에는 서리). 2. 기차로 베르겐: 당일치기 대신 하룻밤 묵기, 많은 비 예상. 3. 목요일에 오슬로로 돌아오기, 날씨는 건조하고 흐릴 전망.',
      },
    ],
  },
}

export type Language = keyof typeof SCRIPTS
export const LANGUAGES = Object.keys(SCRIPTS) as Language[]

/** The conversation in one language: system prompt, then per turn a question, a weather lookup, its result and the answer. */
export function conversation(language: Language): Message[] {
  const { system, turns } = SCRIPTS[language]
  return [
    { role: 'system', text: system },
    ...turns.flatMap(({ user, city, result, answer }, i): Message[] => {
      const call = { id: `call-${i}`, name: 'weather', arguments: JSON.stringify({ city, days: 7 }) }
      const data = JSON.stringify({ city, forecast: result, source: 'met.no', updated: '2026-11-28T06:00:00Z' })
      return [
        { role: 'user', text: user },
        { role: 'assistant', text: '', toolCalls: [call] },
        { role: 'tool', responses: [{ id: call.id, name: 'weather', responseData: data }] },
        { role: 'assistant', text: answer, toolCalls: [] },
      ]
    }),
  ]
}
