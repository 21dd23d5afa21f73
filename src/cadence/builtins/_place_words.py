"""Common English words that are also names in the place index of :mod:`cadence.builtins.info`.

A question given whole to ``current_time`` ("what is your name?", "is it the same time?") holds
ordinary words that are also the name of some town (Same, Tanzania) or another language's name of
one ("name" is Namur in some language). :func:`cadence.builtins.info._mentioned_places` takes such a
word for a place only on stronger evidence (see there).

The list is the one-word names of the index (cities' own and Latin-script alternate names of every
city, countries, states, time zone names and the curated aliases) that are common English words:
lowercase entries of Webster's Second International dictionary (public domain; the ``web2`` list of
the ``english-words`` package), or their -s/-es/-ies/-ed/-ing forms, with a Zipf frequency of at
least 3 in English (at least once per million words; ``wordfreq``). Neither package is a dependency:
they were used once to write this file.
"""

from __future__ import annotations

_COMMON_PLACE_WORDS_TEXT = """
aba abbas abu ace acre act add ado ads aes aga agar aha aid aim air airport aka al ala alameda alamo
alba ale alf all alley alliance alma along alp als alt alter am ama amen ames ami amman amp ams an ana
anchorage and andes anew angeles angle ann anna annex ans antelope anthem apex ar ara are area ariel ark
arm ars art as ascot ash ask asp ast at ate auburn aurora ava axe ba bad badger bae bag bah bake bal
bale bali bam ban banco banda bane banged bangkok bangs banjo bank banning bar barcelona bard bare
barking barn barnes barrage barrow barry basic bat bateman bath batman battleground bay bear beg begun
bel bell ben bend bender berlin best bethel bey bid big billings bin bis blast bloom bluffs bo boa bobo
bod bode bog bolivia bom bon bone boo boom boon bop bor bora bore borg born borne bos bose boston
boulder bow bowie boy bra brad brake bras brat bray brazil bred brent brick brits brunswick bud buffalo
bug bum bun burbank burke burton bury bus bush bust but butte butterfly buy bye cab cabot cad cage
calais caller cam can canada canal canary canes canning canton cap car care carney caroline cars cat
cayman centennial center central centurion ces cha chad chair champaign champion champs chandler chang
chao chas cheng chester chesterfield chi chia chico chile chin china chino cho clarendon clay clive clot
cobra coca coco cocoa coe coin colon colorado coma combs come commonwealth compendium con conception
concord cone confederation consolation converse coo cor cordon cork corona cos cove cow coz crawley
creek crossroads croydon crystal cue cum cup cut cutler cypress dab dad dade dalton dam dame dan dandy
dar date davenport davies dawn day deal dearborn deb defiance delta den derby derry des desi dey dick
die dig dim din dip dire dis div diva divas do dobson dod dog dole dom dome donna dover downtown drama
draper drug dry dual dub dudley due dug dum durant dyer ea eagle ear earnest easter eastern eat ebb eel
ego elbow elf elk elm emery empire enterprise er era eras erika erode eta eureka eve ever evergreen
factory fam fan far fas fat fate fay federal fei fig finland fleet fletcher flint flora florence flores
flushing fog for fore forest forge fountain fra franklin freedom fresno from fry fu fuji fulham fun
furnace gal gala gale gambia gan gap garland garner garrison gas gay gel gen genes geneva gent geo ger
get gif gilbert gill git goa god goes gold golden goodyear gore got graham granada granger grants grass
green greenwood grenade griffin grin grove groves guernsey guinea gums guru gut gym had hail hale hall
ham han handy hanna hare harper harrow hart has hasan hastings hawthorn hay hayes hays hayward hem her
hes het hickory highland highlands hillside hippo hire hit ho hog holden holiday holt homestead homo
honda hook hop horde horn hot hove hub hue hug hula hull hum human humble hurricane hurst hut i iceland
ie ill imp imperial independence inn ion ios ire iso ist jab jag jam japan jar jasper jaw jed jersey
jing joe jog jordan jos junction kai kale kali kan kang kay keen ken kensington kent key keystone khan
kid kiki kilo kim kin ko kos kung kyle la lacrosse lad lafayette lag lai lakeside lama lan lander lap
las lat laurel law lawn lax lay led lee leg lei lemon lend lens les lessen let lev levin lew lewis li
liang liberal liberty lice lids lie lien lim lime limo lin linden linen linn lion lip lis lit lively
loan log logos lombard lone loo loop los lot lube luck lug lux ly mad madam mae mag mage magenta make
makes male mali man mana manage manga mango mani manila manly manning mao mar marathon march marco mare
marina market marks marshal martin mary mascara mascot mason massa mat mau maxwell med media mel mendes
mentor meridian mes mesa met meta mets mew michigan mid midland midway mig mil mila mile mina mine mins
mir mission mite mo mob mobile mojo mole mon mons monster montana monte moo mop mor mora morales more
morocco moron morris mos mosquito moss most mot mountain mow mozambique much mud mun murphy mus mustang
myrtle mystic nag nails nam name nan nana nancy nap napa nas nat natal naw nelson never newton nice
niles nit nix no nod noisy non nor normal north not nu nye o oak obi od oda ode of off officer ogre one
opera opportunity ora oral orange orb orchards ore os our out outer ova overland owe ox pa pace pacific
pad pal palmer pan panama panda pandas panorama pantheon pap papa par para paradise paramount parker
parma parole part pat pau pax pearl pedro pee peer peg pen per perm perry pes pest pet petit pets pew
phi phoenix pi pia pickering pico pin pinto pirate pit pita plain plantation plaque playa plaza plum
plunge po pol pole police polo pom pop port portage porto pos posse possession pox pristine proclamation
prosper providence pry psi pst pub pueblo puma pun punch pup pure pus put quack queens quo rage raj raja
ram ran rand rap rapid ras rat raw ray re rea reading redding redwood rees reg rel rep republic res
reservoir resolute rest retreat reunion revel revere rex ria rib rich rid riding rig rim rio rise risen
riverside roam roanoke robe roc rod rogers roi roles rosario roses rot rouge roundabout rouse row rs rue
run rung ruse russia rust rut rutherford rye sac sadly sag saga sai saint sake sal salads sale saline
salon salt sam samba same san sandy sao sap sar sari sat savage save say schooner se sea seaside sedan
see seen semi sen sens ser sera ses set sew sha shaman shan shanghai shaping shaw she shelly shields
shone shore shot shut shy sic side sig sigma sin since sine sing sion sip sir sire siren sis ski skit
sky slaughter slough sly so soc sod soda soho sol sole solo soma somerset son sophia soul sour south spa
sparks spike spire split spoken spray spring springs spy sri stains stella sterling stoke stow sts sub
sue sues sulphur sum summit sunrise sunset sup superior sur surprise surrey swallow swan sway swords ta
tae taft tag tai taker tal tale tall tam tame tan tango tank tao tap tape tar tara tas tat tau tay te
tea tec tee tell temple ten tender tequila terminus terrace tha than the thorn thy tie til tilt time tin
ting tip tire to tod toe tom tome ton tone tonga tongue toon top tor torn torrent tos tour tours tow toy
trap trident tripoli troll troy truss try tsunami tu tub tucker tug tune tunes tung turbo turk turkey
turn turner tyre un union universal university upland uptown us uss uva valley van vane vans vas vat
vera veto via vicar victor vie vincent vine vineyard virgin vis vista vita vol wa wag wah waits wake
walker walnut wan ware warn warren warsaw wary was wat wave wax we weasel weber webster wed wedding weir
wellington wen west westerly wet wheeling wigan woe woodland woodlands woodrow worcester worms worth
wright wut yam yan yang yarn ye yea yen yes yoga york young yuan z zed zee zest zig zimbabwe zoo
"""

COMMON_PLACE_WORDS = frozenset(_COMMON_PLACE_WORDS_TEXT.split())
"""Common English words (normalised, lower case) that name a place in the index (1239 words)."""
