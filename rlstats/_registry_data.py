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
}
