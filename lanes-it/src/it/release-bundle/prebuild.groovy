// `./lanes release` as a maintainer runs it, and its Central bundle checked against Central's rules:
// refused without the metadata Central requires; signed with a throwaway gpg key (unsigned without gpg);
// the committed POMs untouched. Then the README's BOM block goes into this project's pom.xml.
import java.security.MessageDigest
import java.util.concurrent.TimeUnit
import java.util.zip.ZipFile

File root = new File(readme).parentFile
String version = '0.1.0'
Map<String, String> metadata = [
    'lanes.release.url'         : 'https://lanes.example/project?from=release-test&kind=url',
    'lanes.release.licence.name': 'Release-Test-Licence',
    'lanes.release.licence.url' : 'https://lanes.example/licence',
    'lanes.release.scm.url'     : 'https://lanes.example/lanes.git',
]
List<String> libraries = (new File(root, 'lanes').text =~ /(?m)^LIBRARY_MODULES=(.*)$/)[0][1].split(',') as List
// Never -o: Maven's deploy step refuses to run offline (the release says so); what the outer build
// has in its repository is not downloaded again.
List<String> mavenOptions = ['-q', "-Dmaven.repo.local=${outerRepo}".toString()]

// Runs ./lanes release with these arguments; its output goes to target/<log>; returns [exit code, output].
def release = { String log, List<String> args, Map<String, String> env = [:] ->
  def out = new File(basedir, "target/${log}")
  out.parentFile.mkdirs()
  def pb = new ProcessBuilder([new File(root, 'lanes').path, 'release'] + args)
      .directory(root).redirectErrorStream(true).redirectOutput(out)
  pb.environment().put('JAVA_HOME', System.getProperty('java.home'))
  pb.environment().putAll(env)
  def process = pb.start()
  if (!process.waitFor(40, TimeUnit.MINUTES)) {
    process.descendants().forEach { it.destroyForcibly() }
    process.destroyForcibly().waitFor()
    throw new IllegalStateException("./lanes release ${args} did not end in 40 min; see ${out}")
  }
  [process.exitValue(), out.getText('UTF-8')]
}
def metadataArgs = { Map<String, String> m -> m.collect { k, v -> "-D${k}=${v}".toString() } }

// Refused, one clear error, before any build: each missing property named; a SNAPSHOT version.
def (code, text) = release('release-refused.log', ['--version', version, '--out', new File(basedir, 'target/refused').path,
    metadataArgs(metadata.findAll { k, v -> k != 'lanes.release.licence.name' && k != 'lanes.release.scm.url' })].flatten())
assert code == 2 : "release without a licence name ran (exit ${code}): ${text}"
assert text.contains('lanes.release.licence.name') && text.contains('lanes.release.scm.url') : text
assert !text.contains('lanes.release.licence.url') : "a property that was given is named missing: ${text}"
assert !new File(basedir, 'target/refused/central-bundle.zip').exists()
(code, text) = release('release-snapshot.log', ['--version', '0.1.0-SNAPSHOT', metadataArgs(metadata)].flatten())
assert code == 2 && text.contains("'0.1.0-SNAPSHOT'") : text
(code, text) = release('release-offline.log', ['--version', version, metadataArgs(metadata), '-o'].flatten())
assert code == 2 && text.contains('refuses to run offline') : text

def digest = { String algorithm, byte[] bytes -> MessageDigest.getInstance(algorithm).digest(bytes).encodeHex().toString() }
def committedPoms = [new File(root, 'pom.xml'), new File(root, 'lanes-bom/pom.xml')] + libraries.collect { new File(root, "${it}/pom.xml") }
def pomHashes = { committedPoms.collectEntries { [it.path, digest('SHA-256', it.bytes)] } }
def before = pomHashes()

// Every artifact of the bundle against Central's requirements; gpg verifies the signatures when signed.
def checkBundle = { File zip, boolean signed, Map<String, String> env ->
  assert zip.isFile() : "no bundle at ${zip}"
  def unpacked = new File(zip.parentFile, 'bundle-unpacked')
  unpacked.deleteDir()
  new ZipFile(zip).withCloseable { z ->
    z.entries().each { e ->
      if (!e.directory) { def f = new File(unpacked, e.name); f.parentFile.mkdirs(); f.bytes = z.getInputStream(e).bytes }
    }
  }
  def dir = new File(unpacked, 'dev/lanes')
  def published = dir.list().sort()
  assert published == (['lanes-bom', 'lanes-parent'] + libraries).sort() : "published ${published}"
  def poms = [:]
  assert unpacked.list() as List == ['dev'] && new File(unpacked, 'dev').list() as List == ['lanes'] : 'files outside dev/lanes'
  published.each { a ->
    assert new File(dir, a).list() as List == [version] : "${a}: more than its version folder (maven-metadata.xml?)"
    def files = new File(dir, "${a}/${version}").list().sort()
    def main = a in libraries ? ["${a}-${version}.pom", "${a}-${version}.jar", "${a}-${version}-sources.jar", "${a}-${version}-javadoc.jar"]
                              : ["${a}-${version}.pom"]
    def expected = main.collectMany { m -> [m, "${m}.md5", "${m}.sha1"] + (signed ? ["${m}.asc"] : []) }
    assert files == expected.collect { it.toString() }.sort() : "${a}: ${files}"
    main.each { m ->
      def f = new File(dir, "${a}/${version}/${m}")
      assert new File(f.path + '.md5').text.trim() == digest('MD5', f.bytes) : "${m}.md5 does not match"
      assert new File(f.path + '.sha1').text.trim() == digest('SHA-1', f.bytes) : "${m}.sha1 does not match"
      if (signed) {
        def pb = new ProcessBuilder('gpg', '--batch', '--verify', f.path + '.asc', f.path).redirectErrorStream(true)
        pb.environment().putAll(env)
        def p = pb.start(); def said = p.inputStream.text
        assert p.waitFor() == 0 : "gpg does not verify ${m}.asc: ${said}"
      }
    }
    if (a in libraries) {
      new ZipFile(new File(dir, "${a}/${version}/${a}-${version}.jar")).withCloseable { j -> assert j.entries().any { it.name.endsWith('.class') } : "${a}.jar has no classes" }
      new ZipFile(new File(dir, "${a}/${version}/${a}-${version}-sources.jar")).withCloseable { j -> assert j.entries().any { it.name ==~ /.*\.(java|kt)/ } : "${a}-sources.jar has no sources" }
      new ZipFile(new File(dir, "${a}/${version}/${a}-${version}-javadoc.jar")).withCloseable { j ->
        assert j.entries().any { it.name == (a == 'lanes-kotlin' ? 'README.md' : 'index.html') } : "${a}-javadoc.jar has no javadoc"
      }
    }
    poms[a] = new groovy.xml.XmlSlurper().parse(new File(dir, "${a}/${version}/${a}-${version}.pom"))
  }
  // Central's required POM fields, on each POM or inherited from its parent (in the bundle), literally.
  def field = { String a, Closure<Object> get ->
    def pom = poms[a]
    while (pom != null) {
      def v = get(pom).text().trim()
      if (v) return v
      pom = pom.parent.size() ? poms[pom.parent.artifactId.text()] : null
    }
    null
  }
  published.each { a ->
    def pom = poms[a]
    assert pom.groupId.text() in ['', 'dev.lanes'] && pom.artifactId.text() == a
    assert (pom.version.text() ?: pom.parent.version.text()) == version : "${a}: version ${pom.version.text()}"
    assert pom.name.text().trim() && pom.description.text().trim() : "${a} has no name or description of its own"
    assert field(a, { it.url }) == metadata['lanes.release.url'] : "${a}: url ${field(a, { it.url })}"
    assert field(a, { it.licenses.license.name }) == metadata['lanes.release.licence.name']
    assert field(a, { it.licenses.license.url }) == metadata['lanes.release.licence.url']
    assert field(a, { it.scm.url }) == metadata['lanes.release.scm.url']
    assert field(a, { it.scm.connection }) == "scm:git:${metadata['lanes.release.scm.url']}".toString()
    assert field(a, { it.developers.developer.id }) : "${a}: no developer"
    def pomText = new File(dir, "${a}/${version}/${a}-${version}.pom").text
    assert !pomText.contains('PLACEHOLDER') && !pomText.contains('${lanes.release') : "${a}: a placeholder is left"
    assert !pomText.contains('SNAPSHOT') : "${a}: a SNAPSHOT version is left"
  }
  // The BOM pins every library module, at the release's version, and nothing else.
  def managed = poms['lanes-bom'].dependencyManagement.dependencies.dependency
  assert managed.collect { it.artifactId.text() }.sort() == libraries.sort()
  assert managed.every { it.groupId.text() == 'dev.lanes' && it.version.text() in [version, '${project.version}'] }
  assert !poms['lanes-bom'].parent.size() : 'the BOM has a parent: importing it would pin its third-party versions'
}

// One release (a release build takes minutes): signed with a key made for this test in a GNUPGHOME
// of its own when gpg is here (its agent stopped after), unsigned otherwise. Signing only adds the
// .asc files, so the signed bundle is checked for everything the unsigned one would be, and more.
def gpg = ['/usr/bin/gpg', '/usr/local/bin/gpg'].find { new File(it).canExecute() }
File released
if (gpg == null) {
  println 'release-bundle: no gpg on this machine, an unsigned release is checked'
  released = new File(basedir, 'target/unsigned')
  (code, text) = release('release-unsigned.log', ['--version', version, '--out', released.path, metadataArgs(metadata), mavenOptions].flatten())
  assert code == 0 : "./lanes release failed (exit ${code}): ${text}"
  checkBundle(new File(released, 'central-bundle.zip'), false, [:])
} else {
  def home = java.nio.file.Files.createTempDirectory('lanes-gpg').toFile()
  home.setReadable(false, false); home.setReadable(true, true); home.setExecutable(false, false); home.setExecutable(true, true)
  def gpgEnv = ['GNUPGHOME': home.path]
  def run = { List<String> cmd ->
    def pb = new ProcessBuilder(cmd).redirectErrorStream(true); pb.environment().putAll(gpgEnv)
    def p = pb.start(); def said = p.inputStream.text
    assert p.waitFor() == 0 : "${cmd}: ${said}"
    said
  }
  try {
    run([gpg, '--batch', '--pinentry-mode', 'loopback', '--passphrase', '', '--quick-gen-key',
         'lanes release test <release-test@lanes.invalid>', 'ed25519', 'sign', '1d'])
    def fpr = run([gpg, '--batch', '--with-colons', '--list-secret-keys']).readLines().find { it.startsWith('fpr:') }.split(':')[9]
    released = new File(basedir, 'target/signed')
    (code, text) = release('release-signed.log', ['--version', version, '--sign-key', fpr, '--out', released.path,
        metadataArgs(metadata), mavenOptions].flatten(), gpgEnv)
    assert code == 0 : "./lanes release --sign-key failed (exit ${code}): ${text}"
    checkBundle(new File(released, 'central-bundle.zip'), true, gpgEnv)
    // A tampered file fails the signature check.
    def jar = new File(released, "bundle-unpacked/dev/lanes/lanes-core/${version}/lanes-core-${version}.jar")
    jar.append([0] as byte[])
    def tampered = new ProcessBuilder(gpg, '--batch', '--verify', jar.path + '.asc', jar.path).redirectErrorStream(true)
    tampered.environment().putAll(gpgEnv)
    def verifying = tampered.start(); verifying.inputStream.text
    assert verifying.waitFor() != 0 : 'gpg verified a changed jar'
  } finally {
    def kill = new ProcessBuilder('gpgconf', '--kill', 'all').redirectErrorStream(true)
    kill.environment().putAll(gpgEnv)
    def killing = kill.start(); killing.inputStream.text; killing.waitFor(1, TimeUnit.MINUTES)
    home.deleteDir()
  }
}
assert pomHashes() == before : 'release changed a committed POM'

// The README's BOM block into pom.xml: its file repository is the one just released.
def readmeText = new File(readme).getText('UTF-8')
int at = readmeText.indexOf('<!-- use-it-bom -->')
if (at < 0) throw new IllegalStateException('README.md has no use-it-bom marker')
int start = readmeText.indexOf('```xml\n', at) + '```xml\n'.length()
String block = readmeText.substring(start, readmeText.indexOf('```', start))
String readmeRepo = 'file:///srv/lanes-release/repository'
assert block.contains("<url>${readmeRepo}</url>") : "README's BOM block no longer names ${readmeRepo}"
assert block.contains("<version>${version}</version>") : "README's BOM block is not for version ${version}"
block = block.replace(readmeRepo, new File(released, 'repository').toURI().toString())
def consumerPom = new File(basedir, 'pom.xml')
String placeholder = '<!-- README: use-it-bom -->'
if (!consumerPom.text.contains(placeholder)) throw new IllegalStateException('pom.xml lost its placeholder')
consumerPom.setText(consumerPom.getText('UTF-8').replace(placeholder, block), 'UTF-8')
int ex = readmeText.indexOf('```java\n', readmeText.indexOf('<!-- readme-example -->')) + '```java\n'.length()
def src = new File(basedir, 'src/main/java'); src.mkdirs()
new File(src, 'Example.java').setText(readmeText.substring(ex, readmeText.indexOf('```', ex)), 'UTF-8')

// Nothing of this version left in the build's own repository from an earlier run: it must come from the file repository.
new File(localRepositoryPath, 'dev/lanes').listFiles()?.each { new File(it, version).deleteDir() }
return true
