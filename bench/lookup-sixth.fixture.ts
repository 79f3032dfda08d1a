import type { EvalAbility } from "./lookup-eval.fixture";

/**
 * A sixth evaluation set for ability lookup (issue #15), written at 19:40Z on 2026-11-24 by the
 * seventh session's lookup engineer and committed before any matcher change of that round ran on
 * it. Eighteen abilities of imagined apps of kinds no earlier set has (pet grooming, car service,
 * dating, language flashcards, electric-car charging, babysitting, postal mail forwarding, bike
 * sharing, home alarms, visas, website blockers, road tolls, jury service, airline miles, emergency
 * contacts, public-transport lost property, TV parental controls, mortgages), each given as the
 * compiler gets it (goal, site, page titles and headings; the bench compiles title, triggers and
 * trigger tests the way `trigger-phrasing.ts` and `emit-skill.ts` do). Each has four requests worded
 * as people say them: one that names only the circumstance, one with another verb, one with another
 * object noun, and one with fewer or more words than the goal. Sixteen requests no ability of any set
 * does. Looked up among every set's abilities; the bench prints its figures only, never its misses.
 */
export const SIXTH_ABILITIES: readonly EvalAbility[] = [
  {
    id: "dog-grooming",
    goal: "Book a grooming appointment for my dog",
    site: "paws.example.com",
    site_title: "Example Paws",
    pages: [{ title: "Grooming", headings: ["Grooming", "Pick a time"] }],
    requests: [
      "my dog's fur is all matted and he smells",
      "get the puppy a haircut and a bath on saturday",
      "set up a wash and trim for my poodle",
      "dog groomer",
    ],
  },
  {
    id: "oil-change",
    goal: "Schedule an oil change for my car",
    site: "garage.example.com",
    site_title: "Example Auto Service",
    pages: [{ title: "Service", headings: ["Service", "Choose a slot"] }],
    requests: ["the dashboard says my engine oil is due", "bring my car in for an oil service next week", "arrange a lube job for the truck", "oil change"],
  },
  {
    id: "dating-hide",
    goal: "Hide my dating profile",
    site: "match.example.com",
    site_title: "Example Dating",
    pages: [{ title: "Settings", headings: ["Settings", "Visibility"] }],
    requests: [
      "I met someone and don't want people finding me on the app anymore",
      "make me invisible to other singles for a while",
      "take my dating account out of the search results",
      "stop showing my profile to matches while I'm seeing someone",
    ],
  },
  {
    id: "flashcards",
    goal: "Review my vocabulary flashcards",
    site: "lingo.example.com",
    site_title: "Example Lingo",
    pages: [{ title: "Practice", headings: ["Practice", "Cards due today"] }],
    requests: ["I keep forgetting the german words I learned", "quiz me on my spanish words", "go over the word cards that are due", "study vocab"],
  },
  {
    id: "ev-charger",
    goal: "Find a charging station for my electric car",
    site: "charge.example.com",
    site_title: "Example Charge",
    pages: [{ title: "Map", headings: ["Charging map", "Nearby stations"] }],
    requests: [
      "my tesla battery is almost flat",
      "where can I plug in my ev around here",
      "locate the closest charger for my electric vehicle",
      "ev charging nearby",
    ],
  },
  {
    id: "babysitter",
    goal: "Hire a babysitter",
    site: "sitters.example.com",
    site_title: "Example Sitters",
    pages: [{ title: "Find care", headings: ["Find a sitter", "Book"] }],
    requests: [
      "we need someone to watch the kids on saturday night",
      "book a sitter for friday evening",
      "get a nanny for the children while we're at the wedding",
      "babysitter",
    ],
  },
  {
    id: "mail-forward",
    goal: "Forward my mail to a new address",
    site: "post.example.gov",
    site_title: "Example Postal Service",
    pages: [{ title: "Change of address", headings: ["Change of address", "Mail forwarding"] }],
    requests: [
      "I'm moving house next month and don't want to miss any letters",
      "redirect my post to the new flat",
      "send my letters to where I live now",
      "mail forwarding",
    ],
  },
  {
    id: "bike-unlock",
    goal: "Unlock a shared bike",
    site: "ride.example.com",
    site_title: "Example Bikes",
    pages: [{ title: "Ride", headings: ["Scan to ride", "Unlock"] }],
    requests: [
      "I'm standing next to one of the city bikes and want to ride it",
      "release the bicycle at this dock",
      "unlock the rental cycle in front of me",
      "start a bike ride",
    ],
  },
  {
    id: "alarm-arm",
    goal: "Arm the home security alarm",
    site: "secure.example.com",
    site_title: "Example Security",
    pages: [{ title: "Alarm", headings: ["Alarm", "Arm away"] }],
    requests: [
      "we're leaving for the airport, make sure the house is protected",
      "switch on the burglar alarm",
      "activate the security system at home",
      "arm alarm",
    ],
  },
  {
    id: "visa-apply",
    goal: "Apply for a tourist visa",
    site: "consulate.example.gov",
    site_title: "Example Consulate",
    pages: [{ title: "Visas", headings: ["Visitor visa", "Application form"] }],
    requests: [
      "I need permission to enter japan for my holiday",
      "request a travel visa for my trip to india",
      "start a visitor visa application",
      "how do I get a visa to go sightseeing in brazil",
    ],
  },
  {
    id: "site-block",
    goal: "Block distracting websites",
    site: "focus.example.com",
    site_title: "Example Focus",
    pages: [{ title: "Blocklist", headings: ["Blocklist", "Add site"] }],
    requests: [
      "I waste hours on youtube when I should be working",
      "stop me from opening social media during work",
      "add reddit to the list of sites I can't visit",
      "block sites",
    ],
  },
  {
    id: "toll-pay",
    goal: "Pay a highway toll",
    site: "tolls.example.gov",
    site_title: "Example Tollway",
    pages: [{ title: "Pay a toll", headings: ["Pay a toll", "Plate number"] }],
    requests: [
      "I drove through the toll plaza without a transponder",
      "settle the motorway charge for my trip yesterday",
      "pay the road fee for the bridge crossing",
      "toll",
    ],
  },
  {
    id: "jury-postpone",
    goal: "Postpone my jury duty",
    site: "courts.example.gov",
    site_title: "Example Courts",
    pages: [{ title: "Jury service", headings: ["Jury service", "Request a deferral"] }],
    requests: [
      "I got a jury summons but I'm on vacation that week",
      "defer my jury service to later in the year",
      "move my court date for jury selection",
      "delay jury duty",
    ],
  },
  {
    id: "miles-upgrade",
    goal: "Use my miles for a seat upgrade",
    site: "fly.example.com",
    site_title: "Example Airways",
    pages: [{ title: "Upgrades", headings: ["Upgrade with miles", "Select cabin"] }],
    requests: [
      "I have loads of frequent flyer points and want to sit in business class",
      "spend my air miles to move up to first class",
      "redeem my points for a better cabin on tomorrow's flight",
      "upgrade with miles",
    ],
  },
  {
    id: "emergency-contact",
    goal: "Add an emergency contact",
    site: "health.example.com",
    site_title: "Example Health",
    pages: [{ title: "Profile", headings: ["Profile", "Emergency contacts"] }],
    requests: [
      "if something happens to me they should call my wife",
      "put my brother down as the person to notify in an emergency",
      "list my mom as my in case of emergency person",
      "emergency contact",
    ],
  },
  {
    id: "lost-property",
    goal: "Report an item I left on the train",
    site: "transit.example.gov",
    site_title: "Example Transit",
    pages: [{ title: "Lost property", headings: ["Lost property", "Describe your item"] }],
    requests: [
      "I left my umbrella on the subway this morning",
      "let the transit company know I forgot my bag on the bus",
      "file a lost property claim for my scarf",
      "lost and found",
    ],
  },
  {
    id: "parental-controls",
    goal: "Set parental controls on the TV app",
    site: "tv.example.com",
    site_title: "Example TV",
    pages: [{ title: "Settings", headings: ["Settings", "Parental controls"] }],
    requests: [
      "my kids keep watching shows that are too scary for them",
      "restrict what the children can watch",
      "put an age limit on the streaming profiles",
      "kid safe tv",
    ],
  },
  {
    id: "mortgage-quote",
    goal: "Get a mortgage quote",
    site: "homeloans.example.com",
    site_title: "Example Home Loans",
    pages: [{ title: "Rates", headings: ["Today's rates", "Get a quote"] }],
    requests: [
      "we're thinking of buying a house and want to know what we'd pay each month",
      "estimate my home loan interest rate",
      "show me what a mortgage would cost on a 400k house",
      "mortgage rates",
    ],
  },
];

/** Requests no ability of any set does, several shaped like the circumstance cues ("where is my …", "I forgot …"). */
export const SIXTH_UNRELATED: readonly string[] = [
  "where did I put my glasses",
  "why is the sky blue",
  "my tomato plants are turning yellow",
  "how many calories are in a banana",
  "teach me a card trick",
  "I forgot the name of that actor in the spy movie",
  "what rhymes with orange",
  "is it going to snow this weekend",
  "how do you say thank you in korean",
  "who painted the mona lisa",
  "my back hurts after running",
  "what should I cook with chickpeas",
  "how old is the universe",
  "sing me a lullaby",
  "can dogs eat grapes",
  "what's a good board game for four people",
];
