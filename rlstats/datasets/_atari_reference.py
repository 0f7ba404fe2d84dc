"""Published random-policy and human scores of 57 Atari 2600 games.

These are the per-game normalisers of the human-normalised score,
``(score - random) / (human - random)``, of the 57-game Arcade Learning
Environment benchmark: random-policy and professional-tester scores with
no-op starts, as used by DQN Zoo (Quan and Ostrovski 2020) and rliable
(Agarwal et al. 2021).  The random scores of the 49 games of Mnih et al.
(2015) are those printed there; the human scores are not: Mnih et al. print
e.g. 9.3 for Pong and 31.8 for Breakout, against 14.6 and 30.5 here (the
later table, also in Wang et al. 2016's no-op comparison).  Use one table
throughout a study.

The numbers are published facts; this table was typed from
``dqn_zoo/atari_data.py`` of ``google-deepmind/dqn_zoo`` (version seen at
commit ``359945dcb6f6a04f16e380b210c4f22b57681905``) and cross-checked:

- every random and human value against a second table, the Atari baseline
  scores of the ``xtils`` package (identical for all 57 games);
- the random values against ``reincarnating_rl/atari_scores.py`` of
  ``google-research/reincarnating_rl`` (identical except Video Pinball,
  where that table has 0.0; DQN Zoo notes that a random agent's score on
  Video Pinball depends on the evaluation protocol);
- the human values against the no-op table of ``seungjaeryanlee/rldb``
  (``paper__dudqn/algo__human``; identical for all 57 games);
- the 26 Atari 100k games against ``load("atari100k_reference")`` (the
  ``HUMAN.json`` and ``RANDOM.json`` files of ``eloialonso/iris``), in
  ``tests/test_curve_datasets.py``.

Game names are the Arcade Learning Environment ROM names in CamelCase, as in
``load("atari100k")`` and ``load("dopamine_atari")``.  Five games of the
Dopamine baselines are not among the 57, so no table above gives them a
human score (none was found elsewhere either): they are listed in
:data:`WITHOUT_REFERENCE`.
"""

#: Where the numbers were taken from, as shown in the ``source`` column.
SOURCE = "DQN Zoo (Quan and Ostrovski 2020), dqn_zoo/atari_data.py"

#: ``(game, random, human)`` for each of the 57 games, alphabetical.
SCORES = (
    ("Alien", 227.8, 7127.7),
    ("Amidar", 5.8, 1719.5),
    ("Assault", 222.4, 742.0),
    ("Asterix", 210.0, 8503.3),
    ("Asteroids", 719.1, 47388.7),
    ("Atlantis", 12850.0, 29028.1),
    ("BankHeist", 14.2, 753.1),
    ("BattleZone", 2360.0, 37187.5),
    ("BeamRider", 363.9, 16926.5),
    ("Berzerk", 123.7, 2630.4),
    ("Bowling", 23.1, 160.7),
    ("Boxing", 0.1, 12.1),
    ("Breakout", 1.7, 30.5),
    ("Centipede", 2090.9, 12017.0),
    ("ChopperCommand", 811.0, 7387.8),
    ("CrazyClimber", 10780.5, 35829.4),
    ("Defender", 2874.5, 18688.9),
    ("DemonAttack", 152.1, 1971.0),
    ("DoubleDunk", -18.6, -16.4),
    ("Enduro", 0.0, 860.5),
    ("FishingDerby", -91.7, -38.7),
    ("Freeway", 0.0, 29.6),
    ("Frostbite", 65.2, 4334.7),
    ("Gopher", 257.6, 2412.5),
    ("Gravitar", 173.0, 3351.4),
    ("Hero", 1027.0, 30826.4),
    ("IceHockey", -11.2, 0.9),
    ("Jamesbond", 29.0, 302.8),
    ("Kangaroo", 52.0, 3035.0),
    ("Krull", 1598.0, 2665.5),
    ("KungFuMaster", 258.5, 22736.3),
    ("MontezumaRevenge", 0.0, 4753.3),
    ("MsPacman", 307.3, 6951.6),
    ("NameThisGame", 2292.3, 8049.0),
    ("Phoenix", 761.4, 7242.6),
    ("Pitfall", -229.4, 6463.7),
    ("Pong", -20.7, 14.6),
    ("PrivateEye", 24.9, 69571.3),
    ("Qbert", 163.9, 13455.0),
    ("Riverraid", 1338.5, 17118.0),
    ("RoadRunner", 11.5, 7845.0),
    ("Robotank", 2.2, 11.9),
    ("Seaquest", 68.4, 42054.7),
    ("Skiing", -17098.1, -4336.9),
    ("Solaris", 1236.3, 12326.7),
    ("SpaceInvaders", 148.0, 1668.7),
    ("StarGunner", 664.0, 10250.0),
    ("Surround", -10.0, 6.5),
    ("Tennis", -23.8, -8.3),
    ("TimePilot", 3568.0, 5229.2),
    ("Tutankham", 11.4, 167.6),
    ("UpNDown", 533.4, 11693.2),
    ("Venture", 0.0, 1187.5),
    ("VideoPinball", 16256.9, 17667.9),
    ("WizardOfWor", 563.5, 4756.5),
    ("YarsRevenge", 3092.9, 54576.9),
    ("Zaxxon", 32.5, 9173.3),
)

#: Games of the Dopamine Atari baselines outside the 57, without a human/random normaliser here.
WITHOUT_REFERENCE = ("AirRaid", "Carnival", "ElevatorAction", "JourneyEscape", "Pooyan")
