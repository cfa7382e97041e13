/**
 * The `paraphrases-broad` recipe's phrasings (run 35): run 34's (paraphrases.ts PARAPHRASES) and more of each, aimed
 * at what run 34 missed — greetings and thanks in many more words (a greeting that uses none of thanks' words is
 * answered as a greeting), sums written `1..n` / "through" / "1 + 2 + ... + n", operator words in every position
 * ("plus", "minus", "take away"), squares as powers, and weather follow-ups in more words.
 *
 * Like run 34's, written apart from the paraphrase evaluation (paraphrase-eval.ts): none of its small-talk words
 * (hiya, greetings, yo, heya, morning, evening, friend, again; cheers, appreciated, kindly, perfect, awesome, many,
 * stuff, nice one), none of its templates; paraphrase-eval.test.ts checks that the two stay apart.
 */
import { PARAPHRASES, type Phrasings } from './paraphrases';

const t = PARAPHRASES.templates;
const f = PARAPHRASES.followUps;

export const BROAD_PHRASINGS: Phrasings = {
  templates: {
    times: [...t.times, '{a}*{b}', 'product of {a} and {b}?', '{a} x {b} = ?', 'multiply {a} and {b} please', 'calc {a} times {b}'],
    plus: [...t.plus, '{a} plus {b}', '{a} + {b}?', 'calculate {a} plus {b}', 'what does {a} plus {b} make?', 'Add up {a} and {b}.', '{a} and {b} added together?'],
    minus: [...t.minus, '{a} - {b}?', 'calculate {a} minus {b}', 'what does {a} minus {b} give?', 'difference between {a} and {b}?', '{a} take away {b}'],
    squared: [...t.squared, '{a} to the power of 2?', 'square of {a}?', '{a}**2 = ?', "what's the square of {a}", '{a} to the 2nd power', 'calculate {a} squared please'],
    sum: [
      ...t.sum, 'python: add up 1..{n}', 'sum 1..{n} in python', 'What is 1 + 2 + ... + {n}? Use Python.', 'in python, add all integers from 1 through {n}',
      'script: total of 1 to {n}', 'run code to sum everything from 1 up to {n}', 'compute the sum 1 through {n} with a python script',
      'write python to add the numbers 1 to {n}', 'code: total 1 to {n}', 'py: sum of every integer 1 to {n}',
    ],
    primes: [
      ...t.primes, 'py: primes under {n}', 'list the primes below {n} with code', 'code up the primes less than {n}', 'python: all the primes smaller than {n}',
      'which primes are there under {n}? use code', 'prime numbers below {n}, in python please',
    ],
    capital: [...t.capital, 'capital of {x} please', '{x} capital?', 'what city is the capital of {x}?', "tell me {x}'s capital", 'the capital of {x} is?'],
    population: [...t.population, 'how many live in {x}?', 'number of people in {x}?', '{x} population please', 'how populous is {x}?', 'tell me the population of {x}'],
  },
  greetings: [
    ...PARAPHRASES.greetings, 'howdy', 'Howdy!', 'sup', "what's up?", "hey, what's new?", 'hi bot', 'hello, assistant!', 'hey you', 'hi :)', 'hallo',
    'good afternoon', 'hi, nice to meet you', 'salutations', 'hey buddy', 'hello hello', 'hi, anyone there?', 'bonjour',
    'aloha', 'HELLO', 'Hi!!', 'oh hi', 'well hello', 'hey pal', 'hello, bot', 'hey hey hey', "g'day", 'hi mate', 'hey folks',
  ],
  thanks: [
    ...PARAPHRASES.thanks, 'ty', 'ty!', 'thanks a bunch', 'thank you!', 'I appreciate it', 'that helped, thanks', 'brilliant, thanks', 'ta', 'thanks mate',
    'fantastic, thank you', 'thank you very much!', 'thanks!!', 'cool, thx', 'got it, thanks', 'super, ty', 'lovely, thanks a lot', 'thanks for the help',
    'excellent, thank you', 'much obliged',
  ],
  thanksShare: 0.4,
  followUps: {
    populationThere: [...f.populationThere, 'what is the population there?', 'and how many live there?', 'how many residents does it have?', 'how populous is that city?', 'population there?'],
    weatherThere: [
      ...f.weatherThere, 'how hot is it there?', 'Is it cold there today?', 'what is the temperature there right now?', 'does it rain there today?',
      'and the forecast for that city?', 'what is the weather there today?', 'weather there?',
    ],
    capitalOfIt: [...f.capitalOfIt, 'capital?', 'and the capital city?', 'what is the capital of that country?', 'its capital city?', 'what city is the capital there?'],
  },
  operations: { times: 3, plus: 2.5, minus: 2, squared: 2.5 },
};
