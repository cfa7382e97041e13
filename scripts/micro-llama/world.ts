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

/**
 * A pool with a third, disjoint part: `test`, never used to choose a change of the corpus, where `heldOut` has been
 * used to diagnose failures (so `heldOut` is not an untouched measure).
 */
export interface TestSplit<T> extends Split<T> {
  readonly test: readonly T[];
}

export type SplitName = 'train' | 'heldOut' | 'test';

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
  ['the Netherlands', 'Amsterdam'], ['South Africa', 'Pretoria'], ['Saudi Arabia', 'Riyadh'], ['the Philippines', 'Manila'],
  ['Paraguay', 'Asuncion'], ['Cyprus', 'Nicosia'], ['Malta', 'Valletta'], ['Albania', 'Tirana'], ['Belarus', 'Minsk'],
  ['Kazakhstan', 'Astana'], ['Uganda', 'Kampala'], ['Zambia', 'Lusaka'], ['Zimbabwe', 'Harare'], ['Jamaica', 'Kingston'],
  ['Iraq', 'Baghdad'], ['Cambodia', 'Phnom Penh'], ['Sri Lanka', 'Colombo'],
];

/**
 * Countries never asked about ("capital of ...") in training. Each is a national team that wins events in
 * training ("... was won by Portugal."), so the model has written its name before, in another role.
 */
const HELD_OUT_COUNTRIES = new Set(['Portugal', 'Croatia', 'Ireland', 'Greece', 'Serbia', 'Uruguay', 'Austria', 'Belgium', 'Mexico', 'Finland']);

/**
 * The test split's subjects (see TestSplit), drawn once by `new Rng(5005).sample` from the training pools
 * (leaving out the dev held-out subjects, the new names and the end-to-end tests' Oslo, Paris and Japan)
 * and written here as drawn. Test countries are never asked for their capital in training; every country is a
 * population subject there. Test population cities are asked only for their weather in training, test
 * weather cities only for their population.
 */
const TEST_COUNTRIES = new Set(['Armenia', 'Qatar', 'Uzbekistan', 'Cambodia', 'the Philippines', 'Iceland', 'Ghana', 'Malta', 'Nepal', 'Paraguay']);
const POPULATION_TEST = new Set(['Johannesburg', 'Nice', 'Durban', 'Austin', 'Rio de Janeiro', 'Stuttgart', 'Zagreb', 'Adelaide', 'Minsk', 'Zurich', 'Rome', 'Quito']);
const WEATHER_TEST = new Set(['Kyiv', 'Kolkata', 'Colombo', 'Shenzhen', 'Gdansk', 'Brussels', 'Los Angeles', 'Debrecen', 'Philadelphia', 'Guangzhou', 'Doha', 'Liverpool']);

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
  // Several subjects per role, so that copying a name does not depend on having written it in that role.
  ['Bordeaux', 'France'], ['Toulouse', 'France'], ['Stuttgart', 'Germany'], ['Dresden', 'Germany'], ['Leipzig', 'Germany'],
  ['Bologna', 'Italy'], ['Palermo', 'Italy'], ['Malaga', 'Spain'], ['Bilbao', 'Spain'], ['Rotterdam', 'the Netherlands'],
  ['Utrecht', 'the Netherlands'], ['Ghent', 'Belgium'], ['Graz', 'Austria'], ['Basel', 'Switzerland'], ['Gdansk', 'Poland'],
  ['Wroclaw', 'Poland'], ['Tampere', 'Finland'], ['Malmo', 'Sweden'], ['Odense', 'Denmark'], ['Cork', 'Ireland'],
  ['Leeds', 'the United Kingdom'], ['Bristol', 'the United Kingdom'], ['Nagoya', 'Japan'], ['Sapporo', 'Japan'],
  ['Shenzhen', 'China'], ['Guangzhou', 'China'], ['Bangalore', 'India'], ['Kolkata', 'India'], ['Brisbane', 'Australia'],
  ['Adelaide', 'Australia'], ['Calgary', 'Canada'], ['Quebec City', 'Canada'], ['Phoenix', 'the United States'],
  ['Portland', 'the United States'], ['Detroit', 'the United States'], ['Austin', 'the United States'],
  ['San Diego', 'the United States'], ['Philadelphia', 'the United States'], ['Nashville', 'the United States'],
  ['Guadalajara', 'Mexico'], ['Monterrey', 'Mexico'], ['Medellin', 'Colombia'], ['Valparaiso', 'Chile'],
  ['Rosario', 'Argentina'], ['Salvador', 'Brazil'], ['Recife', 'Brazil'], ['Cape Town', 'South Africa'],
  ['Johannesburg', 'South Africa'], ['Durban', 'South Africa'], ['Marrakesh', 'Morocco'], ['Izmir', 'Turkey'],
  ['Antalya', 'Turkey'], ['Incheon', 'South Korea'], ['Ho Chi Minh City', 'Vietnam'], ['Chiang Mai', 'Thailand'],
  ['Christchurch', 'New Zealand'], ['Kaunas', 'Lithuania'], ['Tartu', 'Estonia'], ['Brno', 'the Czech Republic'],
  ['Debrecen', 'Hungary'], ['Plovdiv', 'Bulgaria'], ['Novi Sad', 'Serbia'], ['Lviv', 'Ukraine'], ['Kharkiv', 'Ukraine'],
  ['Saint Petersburg', 'Russia'], ['Kazan', 'Russia'], ['Novosibirsk', 'Russia'],
];

/** Cities never asked for their population in training; each is asked for its weather there. */
const POPULATION_HELD_OUT = new Set(['Vienna', 'Dublin', 'Cairo', 'Bangkok', 'Toronto', 'Boston', 'Milan', 'Sydney', 'Athens', 'Lima', 'Prague', 'Chicago']);

/** Cities never asked for their weather in training; each is asked for its population there. */
const WEATHER_HELD_OUT = new Set(['Warsaw', 'Nairobi', 'Tokyo', 'Ottawa', 'Madrid', 'Stockholm', 'Munich', 'Lyon', 'Seattle', 'Havana', 'Seoul', 'Geneva']);

/** Cities that occur nowhere in training: names the model never read or wrote (the "new names" diagnostic). */
const NEW_CITY_NAMES = new Set(['Hamburg', 'Seville', 'Kyoto', 'Lagos', 'Mombasa', 'Busan', 'Salzburg', 'Split']);

/** Subjects of capital questions. */
export const COUNTRIES: TestSplit<Country> = splitBy(
  COUNTRY_TABLE.map(([name, capital]) => ({ name, capital })),
  (c) => HELD_OUT_COUNTRIES.has(c.name),
  (c) => TEST_COUNTRIES.has(c.name),
);

/** Every country of the world (capital questions' held-out and test subjects included). */
export const ALL_COUNTRIES: readonly Country[] = COUNTRY_TABLE.map(([name, capital]) => ({ name, capital }));

/** Every city of the world (capitals first), the new names included. */
export const ALL_CITIES: readonly City[] = [
  ...COUNTRY_TABLE.map(([country, name]) => ({ name, country })),
  ...OTHER_CITIES.map(([name, country]) => ({ name, country })),
];

const KNOWN_CITIES = ALL_CITIES.filter((c) => !NEW_CITY_NAMES.has(c.name));

/** City subjects of population questions: held out and test = asked only for their weather in training. */
export const POPULATION_CITIES: TestSplit<City> = splitBy(KNOWN_CITIES, (c) => POPULATION_HELD_OUT.has(c.name), (c) => POPULATION_TEST.has(c.name));

/**
 * Subjects of population questions, by name: the cities above and, in training only, every country (a second
 * role for each country, the capital questions' held-out and test countries included).
 */
export const POPULATION_SUBJECTS: TestSplit<string> = {
  train: [...POPULATION_CITIES.train.map((c) => c.name), ...ALL_COUNTRIES.map((c) => c.name)],
  heldOut: POPULATION_CITIES.heldOut.map((c) => c.name),
  test: POPULATION_CITIES.test.map((c) => c.name),
};

/** Subjects of weather questions: held out and test = asked only for their population in training. */
export const WEATHER_CITIES: TestSplit<City> = splitBy(KNOWN_CITIES, (c) => WEATHER_HELD_OUT.has(c.name), (c) => WEATHER_TEST.has(c.name));

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
      'Find the population of {city}.',
      'Look up how many people live in {city}.',
      'What is the number of people living in {city}?',
    ],
    heldOut: [
      'How many people are there in {city}?',
      'Please look up how many inhabitants {city} has.',
      'I need the latest population of {city}.',
    ],
    test: ['Please find out the population of {city}.', 'What number of people live in {city} today?'],
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
      'Look up the weather in {city}.',
      'Is it cold in {city} today?',
      'What is it like outside in {city} right now?',
    ],
    heldOut: [
      'Please check the current weather in {city} for me.',
      'Tell me what the weather is like in {city} now.',
      'How warm is it in {city} at the moment?',
    ],
    test: ['Can you look up the weather in {city} today?', 'What is the weather like in {city} at the moment?'],
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
      'Find the capital of {country}.',
      'Name the capital of {country}.',
      'Which city is the capital city of {country}?',
    ],
    heldOut: [
      'I need the capital city of {country}.',
      'Tell me which city is the capital of {country}.',
      'Please look up the capital city of {country}.',
    ],
    test: ['Can you find out the capital of {country}?', 'Tell me what the capital of {country} is.'],
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
      'Find out who won the {event} in {year}.',
      'Look up the winner of the {event} in {year}.',
      'Who was the champion of the {event} in {year}?',
    ],
    heldOut: [
      'Tell me the winner of the {event} in {year}, please.',
      'Can you check who won the {event} in {year}?',
      'Who won the {event} in {year}? Please look it up.',
    ],
    test: ['Can you find out who won the {event} in {year}?', 'Who was the winner of the {event} back in {year}?'],
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
      'Compute {a} {op} {b}.',
      'Work out {a} {op} {b} for me.',
      '{a} {op} {b} = ?',
    ],
    heldOut: [
      'Tell me what {a} {op} {b} is.',
      'Can you look up {a} {op} {b} for me?',
      'How much does {a} {op} {b} equal?',
    ],
    test: ['Can you find {a} {op} {b} for me?', 'What is the result of {a} {op} {b}?'],
  },
  integral: {
    train: [
      'What is the integral of x^{n}?',
      'Integrate x^{n} dx.',
      'Find the antiderivative of x^{n}.',
      'Can you integrate x^{n} for me?',
      'What\'s the indefinite integral of x^{n}?',
      'Use Wolfram Alpha to integrate x^{n}.',
      'Please integrate x^{n}.',
      'Find the integral of x^{n} dx.',
      'What do you get when you integrate x^{n}?',
    ],
    heldOut: [
      'Compute the integral of x^{n} with respect to x.',
      'I need the antiderivative of x^{n}, please.',
    ],
    test: ['Can you find the integral of x^{n}?', 'What is the antiderivative of x^{n}?'],
  },
  derivative: {
    train: [
      'What is the derivative of x^{n}?',
      'Differentiate x^{n}.',
      'Find the derivative of x^{n}.',
      'Can you differentiate x^{n} for me?',
      'What\'s the derivative of x^{n} with respect to x?',
      'Use Wolfram Alpha to differentiate x^{n}.',
      'Please differentiate x^{n}.',
      'Compute the derivative of x^{n}.',
      'What do you get when you differentiate x^{n}?',
    ],
    heldOut: [
      'Tell me the derivative of x^{n}, please.',
      'Can you compute the derivative of x^{n} with respect to x?',
    ],
    test: ['Can you find the derivative of x^{n}?', 'What do I get if I differentiate x^{n}?'],
  },
  sqrt: {
    train: [
      'What is the square root of {sq}?',
      'Find the square root of {sq}.',
      'Calculate the square root of {sq}.',
      'What\'s the square root of {sq}?',
      'Can you compute the square root of {sq}?',
      'Please find the square root of {sq}.',
      'What number squared gives {sq}?',
      'Work out the square root of {sq}.',
    ],
    heldOut: [
      'Tell me the square root of {sq}, please.',
      'How much is the square root of {sq}?',
    ],
    test: ['Can you find the square root of {sq} for me?', 'What is the square root of the number {sq}?'],
  },
  solve: {
    train: [
      'Solve {a}x + {b} = {c}.',
      'Solve for x: {a}x + {b} = {c}.',
      'What is x if {a}x + {b} = {c}?',
      'Can you solve {a}x + {b} = {c} for x?',
      'Find x such that {a}x + {b} = {c}.',
      'Please solve {a}x + {b} = {c}.',
      'Find the value of x in {a}x + {b} = {c}.',
      'If {a}x + {b} = {c}, what is x?',
    ],
    heldOut: [
      'Tell me x for {a}x + {b} = {c}.',
      'Please compute x if {a}x + {b} = {c}.',
    ],
    test: ['Can you find x if {a}x + {b} = {c}?', 'What is the value of x in {a}x + {b} = {c}?'],
  },
  sumRange: {
    train: [
      'Use Python to add up the numbers from 1 to {n}.',
      'Write code that prints the sum of the numbers from 1 to {n}.',
      'Compute the sum of the numbers from 1 to {n} in Python.',
      'Run Python to sum the numbers from 1 to {n}.',
      'With Python, what is the sum of the numbers from 1 to {n}?',
      'Write a program that adds up the numbers from 1 to {n}.',
      'Please use Python to find the sum of 1 to {n}.',
      'Using code, sum all the numbers from 1 to {n}.',
    ],
    heldOut: [
      'Can you run code to add up the numbers from 1 to {n}?',
      'Tell me the sum of the numbers from 1 to {n}, with Python.',
    ],
    test: ['Can you use Python to sum the numbers from 1 to {n}?', 'Write code to add up the numbers from 1 to {n}.'],
  },
  factorial: {
    train: [
      'Use Python to calculate the factorial of {n}.',
      'Compute {n} factorial in Python.',
      'Write code that prints the factorial of {n}.',
      'Run Python to compute the factorial of {n}.',
      'With Python, what is the factorial of {n}?',
      'Write a program that computes the factorial of {n}.',
      'Please use Python to find {n} factorial.',
      'Using code, calculate the factorial of {n}.',
    ],
    heldOut: [
      'Can you run code to compute the factorial of {n}?',
      'Tell me the factorial of {n}, with Python.',
    ],
    test: ['Can you use Python to find the factorial of {n}?', 'Write code to compute the factorial of {n}.'],
  },
  power: {
    train: [
      'Use Python to compute {a} to the power of {b}.',
      'Write code that prints {a} to the power of {b}.',
      'Run Python to calculate {a} to the power of {b}.',
      'With Python, what is {a} to the power of {b}?',
      'Compute {a} to the power of {b} in Python.',
      'Write a program that computes {a} to the power of {b}.',
      'Please use Python to find {a} to the power of {b}.',
      'Using code, calculate {a} to the power of {b}.',
    ],
    heldOut: [
      'Can you run code to compute {a} to the power of {b}?',
      'Tell me {a} to the power of {b}, with Python.',
    ],
    test: ['Can you use Python to compute {a} to the power of {b}?', 'Write code to compute {a} to the power of {b}.'],
  },
  sort: {
    train: [
      'Use Python to sort the list [{list}].',
      'Sort the list [{list}] in Python.',
      'Write code that sorts [{list}].',
      'Run Python to sort these numbers: [{list}].',
      'With Python, sort [{list}] from smallest to largest.',
      'Write a program that sorts the list [{list}].',
      'Please use Python to put [{list}] in order.',
      'Using code, sort the numbers [{list}].',
    ],
    heldOut: [
      'Can you run code to sort the list [{list}] for me?',
      'Tell me the list [{list}] sorted, with Python.',
    ],
    test: ['Can you use Python to sort the list [{list}] for me?', 'Write code to sort the list [{list}].'],
  },
  reverse: {
    train: [
      'Use Python to reverse the word "{word}".',
      'Reverse the string "{word}" in Python.',
      'Write code that prints "{word}" backwards.',
      'Run Python to reverse "{word}".',
      'With Python, what is "{word}" spelled backwards?',
      'Write a program that reverses "{word}".',
      'Please use Python to spell "{word}" backwards.',
      'Using code, reverse the string "{word}".',
    ],
    heldOut: [
      'Can you run code to reverse the word "{word}" for me?',
      'Tell me "{word}" backwards, with Python.',
    ],
    test: ['Can you use Python to reverse the word "{word}" for me?', 'Write code to reverse the word "{word}".'],
  },
  followUp: {
    train: ['What about {x}?', 'And {x}?', 'How about {x}?', 'And what about {x}?', 'Same for {x}, please.', 'What about {x}, then?', 'Now {x}.', 'Do the same for {x}.'],
    heldOut: ['And how about {x}, please?', 'Please check {x}.'],
    test: ['Can you check {x}, please?', 'Now do {x}, please.'],
  },
} as const satisfies Record<string, TestSplit<string>>;

/** Small talk: each question with the answers it may get (answered without a tool, ending with eot). */
export interface ChatItem {
  readonly question: string;
  readonly answers: readonly string[];
}

export const GREETING_ANSWERS = ['Hello! How can I help you today?', 'Hi! What can I do for you?', 'Hello! Ask me anything: I can search the web, use Wolfram Alpha and run Python code.'];
export const THANKS_ANSWERS = ['You\'re welcome!', 'You\'re welcome! Let me know if you need anything else.', 'Glad I could help!'];
const IDENTITY_ANSWERS = [
  'I am a small demo assistant. I can search the web, ask Wolfram Alpha and run Python code for you.',
  'I\'m a tiny language model trained for this demo. I can look things up with a web search, do math with Wolfram Alpha and run Python code.',
];
const WELLBEING_ANSWERS = ['I\'m doing well, thank you! How can I help?', 'All good, thanks for asking! What can I do for you?'];
const BYE_ANSWERS = ['Goodbye! Have a nice day.', 'Bye! Feel free to come back with more questions.'];

export const CHAT: TestSplit<ChatItem> = {
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
  test: [
    { question: 'Good morning to you!', answers: GREETING_ANSWERS },
    { question: 'Thank you for that.', answers: THANKS_ANSWERS },
    { question: 'Can you tell me who you are?', answers: IDENTITY_ANSWERS },
    { question: 'How are things?', answers: WELLBEING_ANSWERS },
    { question: 'Bye for now!', answers: BYE_ANSWERS },
  ],
};

/** Questions answered from the system block's date (no tool): the answer must contain the date. */
export const DATE_QUESTIONS: TestSplit<string> = {
  train: ['What is today\'s date?', 'What day is it today?', 'What\'s the date today?', 'Can you tell me today\'s date?', 'Which day is it?'],
  heldOut: ['Do you know the current date?', 'What date is it right now?', 'Can you tell me what day it is?'],
  test: ['Can you tell me the date today?', 'What is the date today?'],
};

/** Caller system messages the training data is rendered with (none, most often). */
export const CALLER_SYSTEM_MESSAGES: readonly string[] = [
  'You are a helpful assistant.',
  'You are a helpful assistant. Answer briefly.',
  'You are a concise assistant that uses tools when they help.',
];

function splitBy<T>(items: readonly T[], heldOut: (item: T) => boolean, test: (item: T) => boolean): TestSplit<T> {
  return { train: items.filter((i) => !heldOut(i) && !test(i)), heldOut: items.filter(heldOut), test: items.filter((i) => test(i) && !heldOut(i)) };
}
