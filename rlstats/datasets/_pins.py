"""Pinned files behind :func:`rlstats.datasets.load`: path and SHA-256 of each.

Each key is ``<owner>/<repo>/<commit>/<path>``: appended to
``https://raw.githubusercontent.com/`` it is the download URL, and appended to
the directory named by ``RLSTATS_DATA_MIRROR`` it is the offline copy.  The
commit in every key pins the file; the SHA-256 next to it is checked on every
read, from the network and from a mirror alike.
"""

IRIS = "eloialonso/iris/24326aaaa283c527f42b89b44cfdecf2665a7a16"
RLLTE = "RLE-Foundation/rllte/929347a6e9cfaa81ff37186d35fa531ee3d45b5d"
ADASTOP = "TimotheeMathieu/Adaptive_stopping_MC_RL/a909c18b87e4435754067f5c604bf607215d60a9"
RL_STATS = "flowersteam/rl_stats/d86bc5991c56743a7602b87afdd21d1de0155fac"
DOPAMINE = "google/dopamine/5873f5494ee0c2d7c016d0ab2ad530354fec59d0"

SHA256 = {
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Alien.json":
        "3152583cafa27c9b48beeade8988c5613d614a09d11634462e2a6697ce263ed5",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Amidar.json":
        "5a613b32663d00f2c59a1fd4d20b827bef76ec5a029e663e0bacbcb5a850449a",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Assault.json":
        "01f002e9c6085a555fd1cb33d89a10c3c28aa564e07187b179ff3943300c3286",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Asterix.json":
        "87034402f6831bed7bfbd0a97c5028e98251bacbab47ab2811d09ca1273977ee",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/BankHeist.json":
        "49c60d8b2885dd196a5ad724b457dad3fb15ae68cf663752dd42affe756b9394",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/BattleZone.json":
        "7179f9ad825f5e8d675828fa53b4818da452ce149ef5b5c8f82b43bd3d03c58c",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Boxing.json":
        "3ce4fcc6db5a9c702547c77ecf501ded8a9c8084edb68494a71a2cb70caead05",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Breakout.json":
        "99ec4039ec5573b5c4d053883402eea0c5f789e2a2b34ff4c68a8c2daf787ef8",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/ChopperCommand.json":
        "206958c4adf7b24465fe9111e2203370810bceb52ab13a8faafed4ea64300118",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/CrazyClimber.json":
        "9b6861a1ed3f3e1183eb794c222db2e93f5954adffcf510174e1d59b817a90c6",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/DemonAttack.json":
        "4addd9caf448a04783da5d1ce2000a2dd274cbf7c4fd8ca4463ca3036ec407fb",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Freeway.json":
        "dda30058fdd8fba527e73118c075af92e09fc6ba4f4a3013ee3de1ac3b41497d",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Frostbite.json":
        "54546d5359480ccdda8dda52362346dde27d3f1c8b3b15e2f4d8adfb64bc43c2",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Gopher.json":
        "bbafaa7212b608870a7b9d7855e8652d02751b759c2b4c8e90af4f477cbd7290",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Hero.json":
        "20500e1b2216377037c1541b3ada4f01a58f3991e9399ba62f3999b0bb88ff1b",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Jamesbond.json":
        "40c39c635baa65f2fc2a699e29e2d954c745a1687cde8be7f646414503e4e1de",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Kangaroo.json":
        "baf9ad73481344d81bc0b72966a2065a70603b2c162c3aa441e2fbc58d9c8eaa",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Krull.json":
        "c369884e5e9073eb39937648c09d609110502d16ca6554802fd013daa23b1d88",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/KungFuMaster.json":
        "c3d96bc230edc15b7ecf0e9da174be04ca652a9df9cc3ebf2e15c33124d43380",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/MsPacman.json":
        "a2f79e02c35c04267ce5c90ae58682723994fab1d28aa743e43cc8e356a107f8",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Pong.json":
        "cd8f0425ea3ee0f64d125a04b546b6488d64bc9547094829733b247ee87d96d1",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/PrivateEye.json":
        "a6f0556c68a33292e368c40e549c28ef33b3d980e5589bb915fe5232a84664f3",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Qbert.json":
        "9c463a01e0fdb190618229e7b4d4e02fdea6c4f9c3832930e2a9386294e7cef7",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/RoadRunner.json":
        "abda3e0d545bbea2d819100c519a5eac935bf4c9a1f0deb795d2a02033e5288c",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/Seaquest.json":
        "d426034699a18d8ccd2bfcfa0fe0fe4119177f1c936e40d24d75f8788cefe8ce",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/CURL/UpNDown.json":
        "c3b45698b7199174a2d84cc669526fa07b83617164af64b90feafbff67743f1a",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/DER.json":
        "5336bcef122472dfc73d8c4eb99e48b13acdc662373828d593f40aaee60bbb8e",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/DrQ.json":
        "f909419fad68c8b495ee6183361e57e4e4aac4d50fbb648dc5061f6f25608d3b",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/OTRainbow.json":
        "c388d709f5f52060d043309e463cca26acb8005001a2e0433cc543fbd29ee434",
    f"{RLLTE}/hsuanwu/evaluation/atari_100k/PlayVirtual.json":
        "404350ecb89fbb16ac31aa6a1cf66eed44848011053d80ed94e5791c0b23abb4",
    f"{ADASTOP}/Deep_RL_xp/experiments/ant/ant1.csv":
        "fd7d9eb39c8e3791bef245ea5fcdadcf578a67595afb0528410991138e92b986",
    f"{ADASTOP}/Deep_RL_xp/experiments/ant/ant2.csv":
        "ad544723d4ffdb20725f80834549dcce1cbea71dafc142097b3b16c329dfef9e",
    f"{ADASTOP}/Deep_RL_xp/experiments/ant/ant3.csv":
        "6aa9eb6d015cc35ec42bcb03af5134c080e1f37daecbe451251f581b5b2f9b26",
    f"{ADASTOP}/Deep_RL_xp/experiments/halfcheetah/halfcheetah1.csv":
        "8aaede20a88f024d19cd6d0c12cc2addab573fa2238abd030ba9d42a7a10fd9b",
    f"{ADASTOP}/Deep_RL_xp/experiments/halfcheetah/halfcheetah2.csv":
        "fff98b82860d2e2dec1d52fd95b44a9e34dd7b8e7647ff5863c83d8df769ed1b",
    f"{ADASTOP}/Deep_RL_xp/experiments/halfcheetah/halfcheetah3.csv":
        "484d70144fb81c64054544c3ab2944084131fcf93c8f6410254b6bb50488c63c",
    f"{ADASTOP}/Deep_RL_xp/experiments/halfcheetah/halfcheetah4.csv":
        "5b48653353af7a959a14ee7c398a1f4532b9ef8a0a884db30e975c9ba20180cf",
    f"{ADASTOP}/Deep_RL_xp/experiments/halfcheetah/halfcheetah5.csv":
        "a7ae03c55bf4272d10422d9c1c8272d0ed076487ece791aa9ff77df47c91bb4f",
    f"{ADASTOP}/Deep_RL_xp/experiments/halfcheetah/halfcheetah6.csv":
        "09ec61333a2e934b9d2a96712167c65d0f6cc6b906dd42cda81e778d1e05aa69",
    f"{ADASTOP}/Deep_RL_xp/experiments/hopper/hopper1.csv":
        "101b7d63466af16758028f2e86cf4e7dcb4ad0f1412c0ec06a13c570af273f98",
    f"{ADASTOP}/Deep_RL_xp/experiments/hopper/hopper2.csv":
        "250c2ea40f77d467d40625819686f13c425c64ad3adc570376b3b6313eaf4678",
    f"{ADASTOP}/Deep_RL_xp/experiments/hopper/hopper3.csv":
        "69da8391420f5f9b8e8ca5cf5db428a01a36e848ef0cfcd1e97d2127b98ccf40",
    f"{ADASTOP}/Deep_RL_xp/experiments/hopper/hopper4.csv":
        "1ab7492036015bb8e33ccdb18ea7c18905c0d750bc770ea08587010cc54a528e",
    f"{ADASTOP}/Deep_RL_xp/experiments/hopper/hopper5.csv":
        "b9a062436895ed0261f21b2fe1012f1140a1297d77b8d1afefddf033eb88356e",
    f"{ADASTOP}/Deep_RL_xp/experiments/hopper/hopper6.csv":
        "d89af3d6ac8404ccb8e0e7c06d71ecd31bf546262d9de9a75a926ed4b477eae0",
    f"{ADASTOP}/Deep_RL_xp/experiments/humanoid/humanoid1.csv":
        "9feb2787fdf2e311e19b86d1a719ec65893e3f76a9b91418d4a8c4aa5530f563",
    f"{ADASTOP}/Deep_RL_xp/experiments/humanoid/humanoid2.csv":
        "0afc2f518a6f666191e05a4feef0d4594a2bf291e8da014d8d8fe13897477b49",
    f"{ADASTOP}/Deep_RL_xp/experiments/humanoid/humanoid3.csv":
        "931fe7169776b27233f2ef3a955bf918bc69d4a3b4ef5636ac1a9736cef73421",
    f"{ADASTOP}/Deep_RL_xp/experiments/walker/walker1.csv":
        "9917142cc817bfd58c4a2f21e0d4a5af219cb2b139a20d00d293499c4abe2586",
    f"{ADASTOP}/Deep_RL_xp/experiments/walker/walker2.csv":
        "e0202d8843a00052a61971b9f52c8f2665a5037c20640bfadec63eaa27f9c392",
    f"{ADASTOP}/Deep_RL_xp/experiments/walker/walker3.csv":
        "75f5dd11fd96c6bbb71d8007e51994e3cb6946885ad9348f23e2b9b08c95b02f",
    f"{ADASTOP}/Deep_RL_xp/experiments/walker/walker4.csv":
        "04d9090965b9b55c43b92b029d9789a6f59bb4b72eb02d11bda59e194556ac03",
    f"{ADASTOP}/Deep_RL_xp/experiments/walker/walker5.csv":
        "604ca1e1fd05070df739951dddcccc578549802021b72e03da9ab8cc4eb59ece",
    f"{ADASTOP}/Deep_RL_xp/experiments/walker/walker6.csv":
        "9c619cdd96ca3bb134ed4dafbc75c1a8d8939f60365dbace6a986bc760d279b5",
    f"{IRIS}/results/data/DrQ(eps).json":
        "a86f9f4243b7eb3f994b6db4c9c87fb698742bfa08e7b06e414be41abf1f0574",
    f"{IRIS}/results/data/HUMAN.json":
        "0889ab6b260a3412477c377cb3f5a8bf03b9f4bd1cbdc295d6e311e2bbc09ea4",
    f"{IRIS}/results/data/IRIS.json":
        "40f45fc2b02e4830e90476ab41ada4251682d9ccc8edaa7b8e25f0ec51bafb5f",
    f"{IRIS}/results/data/RANDOM.json":
        "d991976d38c53610f420a21fc61e1ac56045d9437d4df4b2467088610e83d7ea",
    f"{IRIS}/results/data/SPR.json":
        "055133e22ddb1e7154bbb48b6d229e3b064ea374911158f5d5c1a92cd59e2ad3",
    f"{IRIS}/results/data/SimPLe.json":
        "88075c96386da41b2af37c9fc3b5e6544f7b0d02c14b98c7bc5b1b55c07b9b6c",
    f"{RL_STATS}/data/sac_hc_final_perfs.txt":
        "334cda04e2ee2aff0359043b5627dc1aa640725952c8f66d7837fddc1d783339",
    f"{RL_STATS}/data/td3_hc_final_perfs.txt":
        "550200356c259b474cb0f6334cd055eaaaa34c56a2d0f7f6456a57b821146353",
    f"{DOPAMINE}/baselines/atari/data/airraid.json":
        "1573f779e6790d1a0bec79529261330cc9979cecaa613c313fe132fcfaabb8f1",
    f"{DOPAMINE}/baselines/atari/data/alien.json":
        "8103d2ef4dc81800c5ff4813a345e265d5ab2ceb3f612fe9cdf6541b22d6be31",
    f"{DOPAMINE}/baselines/atari/data/amidar.json":
        "76ed22e3c084b2ca20e47e57771acfffd128483c8cce2678a42f01852ae855fb",
    f"{DOPAMINE}/baselines/atari/data/assault.json":
        "64e76b1a5054baf1594731f334c093c64ae5ae12022b16d8cc860dabe13c87ca",
    f"{DOPAMINE}/baselines/atari/data/asterix.json":
        "74a6cbe8129ac61ce623c02aa40a0abfb3de96d3974fb13d304f1a305a3a2d23",
    f"{DOPAMINE}/baselines/atari/data/asteroids.json":
        "f4197a967e0db86f4a6c0005734822e11a00125f5d0d02f4f1b2b5c8e3cf25d0",
    f"{DOPAMINE}/baselines/atari/data/atlantis.json":
        "c36fb2f054772fdbb294a87e23bba8b2ae9323a9c9080595c8c061e165752d91",
    f"{DOPAMINE}/baselines/atari/data/bankheist.json":
        "ce819eb040a7856e996ad9cae0b9fc17d646ccf106d268afe9f94520f1400b8f",
    f"{DOPAMINE}/baselines/atari/data/battlezone.json":
        "382c025d151acebc3c259a96def771d24ee2a5af45dc44777ec82c341ff6d494",
    f"{DOPAMINE}/baselines/atari/data/beamrider.json":
        "3b16869a19e4c36a30a7de6eb61bd2645f7da9e2543d594b3794b5e4db2004a8",
    f"{DOPAMINE}/baselines/atari/data/berzerk.json":
        "4ecaa1bba1a7c2464687d4510196871888ecc205f46c3afed5af064bf50fc615",
    f"{DOPAMINE}/baselines/atari/data/bowling.json":
        "faea577e25b72d08e3b069624891c9b25e94a186cef8ede390431bb3d4a46eab",
    f"{DOPAMINE}/baselines/atari/data/boxing.json":
        "2501fd177a1e28ce2e05d3eaa13b38650694c88ae430bacd393c0bf931d2c387",
    f"{DOPAMINE}/baselines/atari/data/breakout.json":
        "9dd157ca3a9d49ee236b99e2ab26267c2113362276b3f089c1051338eb96b70d",
    f"{DOPAMINE}/baselines/atari/data/carnival.json":
        "b382386e2440236d55234e5a5c53740687dc1ebbc8a3efae62bfdbda122b21c7",
    f"{DOPAMINE}/baselines/atari/data/centipede.json":
        "50e9110e8609932eec120ec3e2ea884e202f6369da75638622afb5b8f6c6f56a",
    f"{DOPAMINE}/baselines/atari/data/choppercommand.json":
        "fb0bca537f8dd77979ec0bf53ce04828dd54664b0e2dbfea02b39bffa4362df7",
    f"{DOPAMINE}/baselines/atari/data/crazyclimber.json":
        "d3d741df9033432184c769d61f1a5d42cbe26967bae9f4e3801c01bc3c5d2e4d",
    f"{DOPAMINE}/baselines/atari/data/demonattack.json":
        "171942d6c8d8cf2616d74696ba41fdd88299ea76a07451643f7829c888390b54",
    f"{DOPAMINE}/baselines/atari/data/doubledunk.json":
        "1fc258fb2cfefb3d6e6025c06f327a638d67482e0155c5b7d2c5ee64ed310bf7",
    f"{DOPAMINE}/baselines/atari/data/elevatoraction.json":
        "2708fd018398dfe20f4640f3fcd42991874c53f9511b020056b5346f7fbf8207",
    f"{DOPAMINE}/baselines/atari/data/enduro.json":
        "a77803068249aa545f093b446edd7740ea08cdaf6aef1cee2b33dad00de245cb",
    f"{DOPAMINE}/baselines/atari/data/fishingderby.json":
        "4bb69a706b1ad4c471b81090bb65467dd792f9b34d301e8a286e367866a6a7e8",
    f"{DOPAMINE}/baselines/atari/data/freeway.json":
        "fe7625061a569f02463f592e2fd88b015b5447349a71c038e0a2a42afcd59c0e",
    f"{DOPAMINE}/baselines/atari/data/frostbite.json":
        "d17c13d89dd59f39cc48c68465e731f72df3af66524882227ec4a1bc70ebf7da",
    f"{DOPAMINE}/baselines/atari/data/gopher.json":
        "19c3569d352a02d07d26d4b825602e84f226f48a7aa6b95bfc61385562523636",
    f"{DOPAMINE}/baselines/atari/data/gravitar.json":
        "65e9e56105c8aeb1a54c9790472f240d8bced02557b2fb1acaefc57c154b9d05",
    f"{DOPAMINE}/baselines/atari/data/hero.json":
        "4200886c06b2d35096f25a61b802802c7ab7e62b795915c5ec5fe2f07f5fb5d2",
    f"{DOPAMINE}/baselines/atari/data/icehockey.json":
        "9c572b099f640f1f57dc7cbf2e30c6a5307b5137581878ce751406b2dd356b32",
    f"{DOPAMINE}/baselines/atari/data/jamesbond.json":
        "b61cc7ab1f3587e082cb9bcfb95070726c67fed090a78e4a1d01c60e0be74d01",
    f"{DOPAMINE}/baselines/atari/data/journeyescape.json":
        "78186c36e0a2fea3a6ab0e6def0a3ce23540cabb8697fde829bc3b4109bd5e59",
    f"{DOPAMINE}/baselines/atari/data/kangaroo.json":
        "aac8b15333fbd65220cd1430aa3c039d1044f716e517dee02079a5d6756d189d",
    f"{DOPAMINE}/baselines/atari/data/krull.json":
        "396b2f142b8e2999287f6b418225d33d0b65d9369f59a7df377315ed369d370b",
    f"{DOPAMINE}/baselines/atari/data/kungfumaster.json":
        "591fd66dde1ff03f958dc45519773567133043deeff6d842c137a7be5f24ecd7",
    f"{DOPAMINE}/baselines/atari/data/montezumarevenge.json":
        "b54412e21d972979d6472c3752b7e4295b61c2d7392595b071bff110767b28f2",
    f"{DOPAMINE}/baselines/atari/data/mspacman.json":
        "001b77fb36a49ae2a8c3ce4f48a09cfe247e754cbd7c2f281abd8e1cd35d8274",
    f"{DOPAMINE}/baselines/atari/data/namethisgame.json":
        "e23ba35eca79eee0f66cb48c85bd700de3ec96b76308057080c00338ba833054",
    f"{DOPAMINE}/baselines/atari/data/phoenix.json":
        "2b845871e1485939ec6b4f9d809afdb1022c3718489faca0a7b6ad5c8bdfbfad",
    f"{DOPAMINE}/baselines/atari/data/pitfall.json":
        "93248da6bc4288a02b0b38c737fb135b9a015ca6a8c3905ddc633036843cc190",
    f"{DOPAMINE}/baselines/atari/data/pong.json":
        "6a277f08e3574957b948b0ee4fe6b80aaccd2e1e5c781e90dfd6d4447a6c47a7",
    f"{DOPAMINE}/baselines/atari/data/pooyan.json":
        "a6212b2c4aae7daa0c423cd94db4787f56d17713eb5159e781a8f9adafc98b2a",
    f"{DOPAMINE}/baselines/atari/data/privateeye.json":
        "d0306d8da91581ed86c392d3a71c01112031355501d29afd12913419be08534b",
    f"{DOPAMINE}/baselines/atari/data/qbert.json":
        "11e46160f296d602b7782c154f2e02616083282d0f67abbac3a1a1d349aa55e7",
    f"{DOPAMINE}/baselines/atari/data/riverraid.json":
        "8a7fbd62e9517f0af9f77cfaf024578ec2e7a14b10b26bc9e836ef33f465dbe8",
    f"{DOPAMINE}/baselines/atari/data/roadrunner.json":
        "3ae3f246277436d5d8ef0842bc0f660e8fcbfd8bce6bf3476e38ad5c5ea3ce27",
    f"{DOPAMINE}/baselines/atari/data/robotank.json":
        "067a2712d707e0cc79073b8c2e788458692a4abe5b73620d6b6cf88cee1bde79",
    f"{DOPAMINE}/baselines/atari/data/seaquest.json":
        "660f49d1d010b97444c46a932a4848c2c5f4717a94b7c24b5041f7ef1acb21bd",
    f"{DOPAMINE}/baselines/atari/data/skiing.json":
        "e301e141655187484b31f75cadbfb394409d642e0076c8bdabdc43716ce32765",
    f"{DOPAMINE}/baselines/atari/data/solaris.json":
        "ac14d006daca09a848303eb38275329db14208c3931a14f52285806974984d6f",
    f"{DOPAMINE}/baselines/atari/data/spaceinvaders.json":
        "fb1e4dc126bb5a700bcd754c251b5412396b1a2155ea1e10bd09872287f25d62",
    f"{DOPAMINE}/baselines/atari/data/stargunner.json":
        "baea94a301ed5557173a016c5b69ad0f25de250a0087924d3371beb298ca1667",
    f"{DOPAMINE}/baselines/atari/data/tennis.json":
        "bf50ed8f70d82504680526de6124a8b44f4b111e1630a0499f1ef6738e3efe6f",
    f"{DOPAMINE}/baselines/atari/data/timepilot.json":
        "e7d814b81934f5d6a43b37a338aac7b68da14ff1934cb2a9998a05dfdb0d06cc",
    f"{DOPAMINE}/baselines/atari/data/tutankham.json":
        "cdabcee228e401860fd53862e1eb0ce5dcebc9108de03f4ef10fe360ed52bd07",
    f"{DOPAMINE}/baselines/atari/data/upndown.json":
        "6bd0407aa967bf42401dd21370c14361d409ebbeed9ddf36e0567b8fb43252ca",
    f"{DOPAMINE}/baselines/atari/data/venture.json":
        "b205822a33a06799aefb6ac1c2b00e9169b0853c3fb00c3d5489f4effe70afdb",
    f"{DOPAMINE}/baselines/atari/data/videopinball.json":
        "370d585c8176fe1e65f29551a132736d4db5cc04ca22116a54f0343d05f760ab",
    f"{DOPAMINE}/baselines/atari/data/wizardofwor.json":
        "97525229a1a9d2e3416e457162be5137f2f8075a8adca4f18274ffa17c219db6",
    f"{DOPAMINE}/baselines/atari/data/yarsrevenge.json":
        "421e6c815a4e4cf20af003c865d0ef1a8cef8f73b46802bd4c62d0093aa77fde",
    f"{DOPAMINE}/baselines/atari/data/zaxxon.json":
        "b42e2547e787027e25bd413ceb6a82b9c965c9794c621fd8dd1a1624278b68a4",
    f"{RL_STATS}/data/sac_hc_all_perfs.txt":
        "f3e649080604479032611cef5fb6066a202701ec999d4da0cb2dc93a9575c5a2",
    f"{RL_STATS}/data/td3_hc_all_perfs.txt":
        "2cfc0594a1cdca2b8a8fc07a27d00483ab6c928b68ba0a7417fce389fa71f99f",
}

# Dierkes et al. (RLC 2024): the PPO landscapes on LunarLander (one file each) and the tuning experiments
HPO = "ADA-research/combined_hpo_and_reward_shaping/0012b924873a42c3b9a9d0c9766f0b0f92d767aa"
#: landscape (file stem) -> SHA-256; learning-rate_angle-weight and learning-rate_distance-weight are one file
HPO_LANDSCAPES = {
    "gae-lambda_angle_weight": "10294a3fe899d00afbeec53614a1ef4947cd87c4cbaf1cad9d1dae3191f1ebed",
    "gae-lambda_distance-weight": "9be47cdaed0be6cdf1b3dbe4cf1dd4dfa480e444caa386a0acd0f0db7c791a9c",
    "gae-lambda_velocity-weight": "b7277ade9ebf7830bdc3fb0f7944b4a986ec9d43770f8eff3d6c5cd73b3363ef",
    "gamma_angle-weight": "3209c8c62f368bd781329adf6b96332326d20de84375178fafc1c9a2de4a3dea",
    "gamma_distance-weight": "d26611549bdf6f5dd7024689c202170c9b54d11b07f8bf209cc9834e046143e7",
    "gamma_velocity-weight": "1aa43177889699ef17bd9d35d58ccd6284f33e7e7292e0d6451b230d3cfdfbf5",
    "learning-rate_angle-weight": "0bc5fe5db5f21bfb27fa044405af7c9e508050eaa4b94d2acef9fbadb19a8b1c",
    "learning-rate_distance-weight": "0bc5fe5db5f21bfb27fa044405af7c9e508050eaa4b94d2acef9fbadb19a8b1c",
    "learning-rate_velocity-weight": "23c8cee047f6cf6e2cb9f3040684cbd4ef4c8f646dbf8591384c9538314d4ef0",
}
SHA256.update({f"{HPO}/experimental_results/landscape_analysis/{name}.csv": sha for name, sha in HPO_LANDSCAPES.items()})
SHA256[f"{HPO}/experimental_results/optimisation_experiments/optimisation_evaluation_results.csv"] = \
    "7d4a26926e97a677a3fd3e99f1648b2c718247b479d4cc862273f1c120879140"
