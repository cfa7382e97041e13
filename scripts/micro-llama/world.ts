/**
 * The micro model's synthetic world: the entities it is asked about and the phrasings it is asked in,
 * each pool split once, by hand, into a training part and a held-out part. Values (populations,
 * temperatures, winners, numbers) are drawn per dialogue, so the model must read them from the tool
 * result rather than remember them. Entity names always sit after a space where they are copied
 * (question → call → answer), so they tokenize the same way everywhere (" Oslo", not "Os"+"lo").
 */

/** A pool with its training part and its held-out part (disjoint). */
export interface Split<T> {
  readonly train: readonly T[];
  readonly heldOut: readonly T[];
}

export type SplitName = 'train' | 'heldOut';

export interface Country {
  readonly name: string;
  readonly capital: string;
}

export interface City {
  readonly name: string;
  readonly country: string;
}

/** Who can win an event: a person, a national team, a football club, an American football or hockey team. */
export type WinnerKind = 'person' | 'country' | 'club' | 'nfl' | 'nhl';

export interface SportEvent {
  readonly name: string;
  readonly winner: WinnerKind;
}

const COUNTRY_TABLE: ReadonlyArray<readonly [string, string]> = [
  ['Norway', 'Oslo'], ['Sweden', 'Stockholm'], ['Denmark', 'Copenhagen'], ['Finland', 'Helsinki'],
  ['Iceland', 'Reykjavik'], ['Germany', 'Berlin'], ['France', 'Paris'], ['Spain', 'Madrid'],
  ['Portugal', 'Lisbon'], ['Italy', 'Rome'], ['Greece', 'Athens'], ['Austria', 'Vienna'],
  ['Switzerland', 'Bern'], ['Belgium', 'Brussels'], ['Poland', 'Warsaw'], ['Hungary', 'Budapest'],
  ['Ireland', 'Dublin'], ['Romania', 'Bucharest'], ['Bulgaria', 'Sofia'], ['Serbia', 'Belgrade'],
  ['Croatia', 'Zagreb'], ['Ukraine', 'Kyiv'], ['Turkey', 'Ankara'], ['Egypt', 'Cairo'],
  ['Kenya', 'Nairobi'], ['Nigeria', 'Abuja'], ['Ghana', 'Accra'], ['Morocco', 'Rabat'],
  ['Japan', 'Tokyo'], ['China', 'Beijing'], ['India', 'New Delhi'], ['Thailand', 'Bangkok'],
  ['Vietnam', 'Hanoi'], ['Indonesia', 'Jakarta'], ['Malaysia', 'Kuala Lumpur'], ['Iran', 'Tehran'],
  ['Jordan', 'Amman'], ['Lebanon', 'Beirut'], ['Australia', 'Canberra'], ['Canada', 'Ottawa'],
  ['Mexico', 'Mexico City'], ['Argentina', 'Buenos Aires'], ['Chile', 'Santiago'], ['Peru', 'Lima'],
  ['Colombia', 'Bogota'], ['Cuba', 'Havana'], ['Russia', 'Moscow'], ['Nepal', 'Kathmandu'],
  ['Senegal', 'Dakar'], ['Tunisia', 'Tunis'], ['Qatar', 'Doha'], ['Uruguay', 'Montevideo'],
  ['Ecuador', 'Quito'], ['Latvia', 'Riga'], ['Lithuania', 'Vilnius'], ['Estonia', 'Tallinn'],
  ['Slovakia', 'Bratislava'], ['Georgia', 'Tbilisi'], ['Armenia', 'Yerevan'], ['Bangladesh', 'Dhaka'],
  ['South Korea', 'Seoul'], ['New Zealand', 'Wellington'], ['the United Kingdom', 'London'],
  ['the Czech Republic', 'Prague'], ['Brazil', 'Brasilia'], ['Pakistan', 'Islamabad'],
  ['Algeria', 'Algiers'], ['Ethiopia', 'Addis Ababa'], ['Venezuela', 'Caracas'], ['Mongolia', 'Ulaanbaatar'],
  ['Uzbekistan', 'Tashkent'], ['Slovenia', 'Ljubljana'],
];

/**
 * Countries never asked about ("capital of ...") in training. Each is a national team that wins events in
 * training ("... was won by Portugal."), so the model has written its name before, in another role.
 */
const HELD_OUT_COUNTRIES = new Set(['Portugal', 'Croatia', 'Ireland', 'Greece', 'Serbia', 'Uruguay', 'Austria', 'Belgium', 'Mexico', 'Finland']);

/** Cities that are not capitals, with their country (written as in COUNTRY_TABLE). */
const OTHER_CITIES: ReadonlyArray<readonly [string, string]> = [
  ['Bergen', 'Norway'], ['Gothenburg', 'Sweden'], ['Aarhus', 'Denmark'], ['Hamburg', 'Germany'],
  ['Munich', 'Germany'], ['Cologne', 'Germany'], ['Frankfurt', 'Germany'], ['Lyon', 'France'],
  ['Marseille', 'France'], ['Nice', 'France'], ['Barcelona', 'Spain'], ['Valencia', 'Spain'],
  ['Seville', 'Spain'], ['Porto', 'Portugal'], ['Milan', 'Italy'], ['Naples', 'Italy'], ['Turin', 'Italy'],
  ['Florence', 'Italy'], ['Venice', 'Italy'], ['Geneva', 'Switzerland'], ['Zurich', 'Switzerland'],
  ['Krakow', 'Poland'], ['Manchester', 'the United Kingdom'], ['Liverpool', 'the United Kingdom'],
  ['Glasgow', 'the United Kingdom'], ['Edinburgh', 'the United Kingdom'], ['Birmingham', 'the United Kingdom'],
  ['Osaka', 'Japan'], ['Kyoto', 'Japan'], ['Shanghai', 'China'], ['Mumbai', 'India'], ['Chennai', 'India'],
  ['Sydney', 'Australia'], ['Melbourne', 'Australia'], ['Perth', 'Australia'], ['Toronto', 'Canada'],
  ['Vancouver', 'Canada'], ['Montreal', 'Canada'], ['Chicago', 'the United States'], ['Boston', 'the United States'],
  ['Seattle', 'the United States'], ['Denver', 'the United States'], ['Houston', 'the United States'],
  ['Dallas', 'the United States'], ['Miami', 'the United States'], ['Atlanta', 'the United States'],
  ['San Francisco', 'the United States'], ['Los Angeles', 'the United States'], ['New York', 'the United States'],
  ['Rio de Janeiro', 'Brazil'], ['Sao Paulo', 'Brazil'], ['Lagos', 'Nigeria'], ['Casablanca', 'Morocco'],
  ['Alexandria', 'Egypt'], ['Istanbul', 'Turkey'], ['Dubai', 'the United Arab Emirates'], ['Auckland', 'New Zealand'],
  ['Cordoba', 'Argentina'], ['Mombasa', 'Kenya'], ['Busan', 'South Korea'], ['Karachi', 'Pakistan'],
  ['Salzburg', 'Austria'], ['Antwerp', 'Belgium'], ['Thessaloniki', 'Greece'], ['Split', 'Croatia'],
];

/** Cities never asked for their population in training; each is asked for its weather there. */
const POPULATION_HELD_OUT = new Set(['Vienna', 'Dublin', 'Cairo', 'Bangkok', 'Toronto', 'Boston', 'Milan', 'Sydney', 'Athens', 'Lima', 'Prague', 'Chicago']);

/** Cities never asked for their weather in training; each is asked for its population there. */
const WEATHER_HELD_OUT = new Set(['Warsaw', 'Nairobi', 'Tokyo', 'Ottawa', 'Madrid', 'Stockholm', 'Munich', 'Lyon', 'Seattle', 'Havana', 'Seoul', 'Geneva']);

/** Cities that occur nowhere in training: names the model never read or wrote (the "new names" diagnostic). */
const NEW_CITY_NAMES = new Set(['Hamburg', 'Seville', 'Kyoto', 'Lagos', 'Mombasa', 'Busan', 'Salzburg', 'Split']);

export const COUNTRIES: Split<Country> = splitBy(
  COUNTRY_TABLE.map(([name, capital]) => ({ name, capital })),
  (c) => HELD_OUT_COUNTRIES.has(c.name),
);

/** Every city of the world (capitals first), the new names included. */
export const ALL_CITIES: readonly City[] = [
  ...COUNTRY_TABLE.map(([country, name]) => ({ name, country })),
  ...OTHER_CITIES.map(([name, country]) => ({ name, country })),
];

const KNOWN_CITIES = ALL_CITIES.filter((c) => !NEW_CITY_NAMES.has(c.name));

/** Subjects of population questions: held out = asked only for their weather in training. */
export const POPULATION_CITIES: Split<City> = splitBy(KNOWN_CITIES, (c) => POPULATION_HELD_OUT.has(c.name));

/** Subjects of weather questions: held out = asked only for their population in training. */
export const WEATHER_CITIES: Split<City> = splitBy(KNOWN_CITIES, (c) => WEATHER_HELD_OUT.has(c.name));

/** Cities that occur nowhere in training. */
export const NEW_CITIES: readonly City[] = ALL_CITIES.filter((c) => NEW_CITY_NAMES.has(c.name));

export const EVENTS: Split<SportEvent> = {
  train: [
    { name: 'World Cup', winner: 'country' },
    { name: 'Tour de France', winner: 'person' },
    { name: 'Super Bowl', winner: 'nfl' },
    { name: 'Champions League final', winner: 'club' },
    { name: 'Eurovision Song Contest', winner: 'country' },
    { name: 'Wimbledon men\'s singles title', winner: 'person' },
    { name: 'Nobel Prize in Literature', winner: 'person' },
    { name: 'Boston Marathon', winner: 'person' },
    { name: 'Euro Cup', winner: 'country' },
    { name: 'French Open', winner: 'person' },
  ],
  heldOut: [
    { name: 'Stanley Cup', winner: 'nhl' },
    { name: 'Giro d\'Italia', winner: 'person' },
    { name: 'London Marathon', winner: 'person' },
    { name: 'Women\'s World Cup', winner: 'country' },
  ],
};

export const FIRST_NAMES: readonly string[] = [
  'Anna', 'Maria', 'Lucas', 'Elena', 'David', 'Sofia', 'Marco', 'Laura', 'Jonas', 'Emma', 'Daniel', 'Sara',
  'Peter', 'Julia', 'Thomas', 'Nina', 'Carlos', 'Ana', 'James', 'Hannah', 'Ivan', 'Olga', 'Ahmed', 'Leila',
  'Kenji', 'Yuki', 'Samuel', 'Grace', 'Pablo', 'Clara', 'Victor', 'Alice', 'Oscar', 'Lena', 'Paul', 'Eva',
];

export const LAST_NAMES: readonly string[] = [
  'Smith', 'Johnson', 'Garcia', 'Martin', 'Schmidt', 'Rossi', 'Nielsen', 'Novak', 'Silva', 'Kim', 'Lopez',
  'Berg', 'Moreau', 'Costa', 'Fischer', 'Larsen', 'Meyer', 'Petrov', 'Khan', 'Tanaka', 'Brown', 'Wilson',
  'Taylor', 'Walker', 'Hall', 'Young', 'King', 'Wright', 'Green', 'Baker', 'Adams', 'Nelson', 'Carter', 'Reed',
];

export const CLUBS: readonly string[] = [
  'Real Madrid', 'Barcelona', 'Bayern Munich', 'Liverpool', 'Chelsea', 'Manchester City', 'Inter Milan',
  'AC Milan', 'Juventus', 'Ajax', 'Porto', 'Benfica', 'Arsenal', 'Dortmund',
];

export const NFL_TEAMS: readonly string[] = [
  'the Kansas City Chiefs', 'the New England Patriots', 'the Green Bay Packers', 'the Dallas Cowboys',
  'the Denver Broncos', 'the Seattle Seahawks', 'the New York Giants', 'the Philadelphia Eagles',
  'the Pittsburgh Steelers', 'the Los Angeles Rams',
];

export const NHL_TEAMS: readonly string[] = [
  'the Boston Bruins', 'the Chicago Blackhawks', 'the Detroit Red Wings', 'the Montreal Canadiens',
  'the Tampa Bay Lightning', 'the Colorado Avalanche', 'the Vegas Golden Knights', 'the Florida Panthers',
];

/** Countries that win national-team events (a wider pool than COUNTRIES' names, all plain names). */
export const TEAM_COUNTRIES: readonly string[] = [
  'Brazil', 'Germany', 'Italy', 'Argentina', 'France', 'Spain', 'England', 'Uruguay', 'Netherlands', 'Sweden',
  'Norway', 'Portugal', 'Croatia', 'Denmark', 'Ireland', 'Finland', 'Israel', 'Ukraine', 'Greece', 'Serbia',
  'Japan', 'Mexico', 'Belgium', 'Austria', 'Switzerland', 'Poland',
];

export const WEATHER_CONDITIONS: readonly string[] = [
  'sunny', 'cloudy', 'partly cloudy', 'light rain', 'heavy rain', 'snow', 'fog', 'thunderstorms', 'clear skies',
  'drizzle', 'overcast', 'strong wind', 'sleet', 'hail', 'light snow', 'mist',
];

/** Words for string-reversal code requests. */
export const WORDS: Split<string> = {
  train: [
    'banana', 'python', 'garden', 'window', 'orange', 'silver', 'planet', 'rocket', 'bridge', 'castle', 'forest',
    'guitar', 'island', 'jacket', 'kitten', 'lemon', 'market', 'number', 'ocean', 'pencil', 'rabbit', 'summer',
    'ticket', 'winter', 'yellow', 'coffee', 'dragon', 'engine', 'flower', 'hammer', 'letter', 'mirror', 'pepper',
    'string', 'turtle', 'basket', 'candle', 'dinner', 'mountain', 'library', 'computer', 'weather', 'morning',
    'holiday', 'picture', 'kitchen', 'chicken', 'teacher', 'student', 'country',
  ],
  heldOut: ['apple', 'tiger', 'spoon', 'cloud', 'travel', 'puzzle', 'button', 'monkey', 'violin', 'shadow', 'silence', 'harbor'],
};

/**
 * Question phrasings. Held-out phrasings are new sentences made only of tokens that occur in the training
 * corpus (checked once, when they were written), so that a held-out failure is about phrasing, not about
 * an embedding row that was never trained. `{city}`, `{country}`, `{event}`, `{year}`, `{a}`, `{b}`, `{c}`, `{op}`, `{n}`, `{sq}`, `{list}`, `{word}` are filled in. */
export const TEMPLATES = {
  population: {
    train: [
      'What is the population of {city}?',
      'How many people live in {city}?',
      'What\'s the current population of {city}?',
      'Can you look up the population of {city}?',
      'Tell me the population of {city}.',
      'How many inhabitants does {city} have?',
      'Search the web for the population of {city}.',
      'What is the current population of {city}?',
      'Do you know how many people live in {city}?',
      'I wonder how many people live in {city}. Can you check?',
    ],
    heldOut: [
      'How many people are there in {city}?',
      'Please look up how many inhabitants {city} has.',
      'I need the latest population of {city}.',
    ],
  },
  weather: {
    train: [
      'What\'s the weather like in {city}?',
      'What is the weather in {city} today?',
      'How is the weather in {city} right now?',
      'Can you check the weather in {city}?',
      'Is it raining in {city}?',
      'What is the temperature in {city} right now?',
      'Tell me the weather in {city}.',
      'How cold is it in {city} today?',
      'Search for the current weather in {city}.',
      'What\'s the forecast for {city} today?',
    ],
    heldOut: [
      'Please check the current weather in {city} for me.',
      'Tell me what the weather is like in {city} now.',
      'How warm is it in {city} at the moment?',
    ],
  },
  capital: {
    train: [
      'What is the capital of {country}?',
      'What\'s the capital city of {country}?',
      'Which city is the capital of {country}?',
      'Can you tell me the capital of {country}?',
      'Search the web for the capital of {country}.',
      'Do you know the capital of {country}?',
      'What city is the capital of {country}?',
      'Look up the capital of {country}.',
    ],
    heldOut: [
      'I need the capital city of {country}.',
      'Tell me which city is the capital of {country}.',
      'Please look up the capital city of {country}.',
    ],
  },
  winner: {
    train: [
      'Who won the {event} in {year}?',
      'Who was the winner of the {event} in {year}?',
      'Do you know who won the {event} in {year}?',
      'Can you look up who won the {event} in {year}?',
      'Tell me who won the {event} in {year}.',
      'Search for the winner of the {event} in {year}.',
      'Which team or player won the {event} in {year}?',
    ],
    heldOut: [
      'Tell me the winner of the {event} in {year}, please.',
      'Can you check who won the {event} in {year}?',
      'Who won the {event} in {year}? Please look it up.',
    ],
  },
  arithmetic: {
    train: [
      'What is {a} {op} {b}?',
      'Calculate {a} {op} {b}.',
      'How much is {a} {op} {b}?',
      'What\'s {a} {op} {b}?',
      'Can you calculate {a} {op} {b} for me?',
      'Please compute {a} {op} {b}.',
      'Ask Wolfram Alpha: what is {a} {op} {b}?',
      'What does {a} {op} {b} equal?',
    ],
    heldOut: [
      'Tell me what {a} {op} {b} is.',
      'Can you look up {a} {op} {b} for me?',
      'How much does {a} {op} {b} equal?',
    ],
  },
  integral: {
    train: [
      'What is the integral of x^{n}?',
      'Integrate x^{n} dx.',
      'Find the antiderivative of x^{n}.',
      'Can you integrate x^{n} for me?',
      'What\'s the indefinite integral of x^{n}?',
      'Use Wolfram Alpha to integrate x^{n}.',
    ],
    heldOut: [
      'Compute the integral of x^{n} with respect to x.',
      'I need the antiderivative of x^{n}, please.',
    ],
  },
  derivative: {
    train: [
      'What is the derivative of x^{n}?',
      'Differentiate x^{n}.',
      'Find the derivative of x^{n}.',
      'Can you differentiate x^{n} for me?',
      'What\'s the derivative of x^{n} with respect to x?',
      'Use Wolfram Alpha to differentiate x^{n}.',
    ],
    heldOut: [
      'Tell me the derivative of x^{n}, please.',
      'Can you compute the derivative of x^{n} with respect to x?',
    ],
  },
  sqrt: {
    train: [
      'What is the square root of {sq}?',
      'Find the square root of {sq}.',
      'Calculate the square root of {sq}.',
      'What\'s the square root of {sq}?',
      'Can you compute the square root of {sq}?',
    ],
    heldOut: [
      'Tell me the square root of {sq}, please.',
      'How much is the square root of {sq}?',
    ],
  },
  solve: {
    train: [
      'Solve {a}x + {b} = {c}.',
      'Solve for x: {a}x + {b} = {c}.',
      'What is x if {a}x + {b} = {c}?',
      'Can you solve {a}x + {b} = {c} for x?',
      'Find x such that {a}x + {b} = {c}.',
    ],
    heldOut: [
      'Tell me x for {a}x + {b} = {c}.',
      'Please compute x if {a}x + {b} = {c}.',
    ],
  },
  sumRange: {
    train: [
      'Use Python to add up the numbers from 1 to {n}.',
      'Write code that prints the sum of the numbers from 1 to {n}.',
      'Compute the sum of the numbers from 1 to {n} in Python.',
      'Run Python to sum the numbers from 1 to {n}.',
      'With Python, what is the sum of the numbers from 1 to {n}?',
    ],
    heldOut: [
      'Can you run code to add up the numbers from 1 to {n}?',
      'Tell me the sum of the numbers from 1 to {n}, with Python.',
    ],
  },
  factorial: {
    train: [
      'Use Python to calculate the factorial of {n}.',
      'Compute {n} factorial in Python.',
      'Write code that prints the factorial of {n}.',
      'Run Python to compute the factorial of {n}.',
      'With Python, what is the factorial of {n}?',
    ],
    heldOut: [
      'Can you run code to compute the factorial of {n}?',
      'Tell me the factorial of {n}, with Python.',
    ],
  },
  power: {
    train: [
      'Use Python to compute {a} to the power of {b}.',
      'Write code that prints {a} to the power of {b}.',
      'Run Python to calculate {a} to the power of {b}.',
      'With Python, what is {a} to the power of {b}?',
      'Compute {a} to the power of {b} in Python.',
    ],
    heldOut: [
      'Can you run code to compute {a} to the power of {b}?',
      'Tell me {a} to the power of {b}, with Python.',
    ],
  },
  sort: {
    train: [
      'Use Python to sort the list [{list}].',
      'Sort the list [{list}] in Python.',
      'Write code that sorts [{list}].',
      'Run Python to sort these numbers: [{list}].',
      'With Python, sort [{list}] from smallest to largest.',
    ],
    heldOut: [
      'Can you run code to sort the list [{list}] for me?',
      'Tell me the list [{list}] sorted, with Python.',
    ],
  },
  reverse: {
    train: [
      'Use Python to reverse the word "{word}".',
      'Reverse the string "{word}" in Python.',
      'Write code that prints "{word}" backwards.',
      'Run Python to reverse "{word}".',
      'With Python, what is "{word}" spelled backwards?',
    ],
    heldOut: [
      'Can you run code to reverse the word "{word}" for me?',
      'Tell me "{word}" backwards, with Python.',
    ],
  },
  followUp: {
    train: ['What about {x}?', 'And {x}?', 'How about {x}?', 'And what about {x}?', 'Same for {x}, please.'],
    heldOut: ['And how about {x}, please?', 'Please check {x}.'],
  },
} as const satisfies Record<string, Split<string>>;

/** Small talk: each question with the answers it may get (answered without a tool, ending with eot). */
export interface ChatItem {
  readonly question: string;
  readonly answers: readonly string[];
}

const GREETING_ANSWERS = ['Hello! How can I help you today?', 'Hi! What can I do for you?', 'Hello! Ask me anything: I can search the web, use Wolfram Alpha and run Python code.'];
const THANKS_ANSWERS = ['You\'re welcome!', 'You\'re welcome! Let me know if you need anything else.', 'Glad I could help!'];
const IDENTITY_ANSWERS = [
  'I am a small demo assistant. I can search the web, ask Wolfram Alpha and run Python code for you.',
  'I\'m a tiny language model trained for this demo. I can look things up with a web search, do math with Wolfram Alpha and run Python code.',
];
const WELLBEING_ANSWERS = ['I\'m doing well, thank you! How can I help?', 'All good, thanks for asking! What can I do for you?'];
const BYE_ANSWERS = ['Goodbye! Have a nice day.', 'Bye! Feel free to come back with more questions.'];

export const CHAT: Split<ChatItem> = {
  train: [
    ...['Hi!', 'Hello!', 'Hello there.', 'Good morning!', 'Hey!', 'Hi there!', 'Good afternoon.'].map((question) => ({ question, answers: GREETING_ANSWERS })),
    ...['Thanks!', 'Thank you very much.', 'Thank you!', 'Thanks a lot.', 'Great, thanks.'].map((question) => ({ question, answers: THANKS_ANSWERS })),
    ...['Who are you?', 'What are you?', 'What can you do?', 'What kind of assistant are you?', 'What are you able to help with?'].map((question) => ({ question, answers: IDENTITY_ANSWERS })),
    ...['How are you?', 'How are you doing today?', 'How is it going?'].map((question) => ({ question, answers: WELLBEING_ANSWERS })),
    ...['Goodbye!', 'Bye!', 'See you later.', 'That is all for now, bye.'].map((question) => ({ question, answers: BYE_ANSWERS })),
  ],
  heldOut: [
    { question: 'Hi, good morning!', answers: GREETING_ANSWERS },
    { question: 'Thank you for your help.', answers: THANKS_ANSWERS },
    { question: 'Tell me what you are.', answers: IDENTITY_ANSWERS },
    { question: 'Hello, how are you?', answers: WELLBEING_ANSWERS },
    { question: 'Bye, have a nice day!', answers: BYE_ANSWERS },
  ],
};

/** Questions answered from the system block's date (no tool): the answer must contain the date. */
export const DATE_QUESTIONS: Split<string> = {
  train: ['What is today\'s date?', 'What day is it today?', 'What\'s the date today?', 'Can you tell me today\'s date?', 'Which day is it?'],
  heldOut: ['Do you know the current date?', 'What date is it right now?', 'Can you tell me what day it is?'],
};

/** Caller system messages the training data is rendered with (none, most often). */
export const CALLER_SYSTEM_MESSAGES: readonly string[] = [
  'You are a helpful assistant.',
  'You are a helpful assistant. Answer briefly.',
  'You are a concise assistant that uses tools when they help.',
];

function splitBy<T>(items: readonly T[], heldOut: (item: T) => boolean): Split<T> {
  return { train: items.filter((i) => !heldOut(i)), heldOut: items.filter(heldOut) };
}
