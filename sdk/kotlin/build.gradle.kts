// The Kotlin SDK as an Android library: com.service:attribution-sdk. Every version is in
// gradle/libs.versions.toml, which test.sh reads too (it fetches the same artifacts, builds the
// AAR and writes the POM this publication would give, since the machines that test this
// repository have no Gradle or Android SDK).
plugins {
    alias(libs.plugins.android.library)
    alias(libs.plugins.kotlin.android)
    `maven-publish`
}

group = "com.service"
version = libs.versions.sdk.get()

android {
    namespace = "com.service.attribution"
    compileSdk = libs.versions.compileSdk.get().toInt()

    defaultConfig {
        minSdk = libs.versions.minSdk.get().toInt()
        consumerProguardFiles("consumer-rules.pro")
    }

    compileOptions {
        sourceCompatibility = JavaVersion.toVersion(libs.versions.jvmTarget.get())
        targetCompatibility = JavaVersion.toVersion(libs.versions.jvmTarget.get())
    }

    testOptions {
        unitTests.isIncludeAndroidResources = true
        unitTests.all {
            // Robolectric's android-all comes from the build's own dependencies, never fetched by
            // Robolectric while tests run.
            it.systemProperty("robolectric.offline", "true")
            it.systemProperty(
                "robolectric.dependency.dir",
                configurations.getByName("robolectricRuntime").singleFile.parentFile.absolutePath,
            )
            // Conscrypt's loader misnames its native library under a Turkish default locale, and
            // the tests need no TLS (tools/jvm.sh says more).
            it.systemProperty("robolectric.conscryptMode", "OFF")
        }
    }

    publishing {
        singleVariant("release") {
            withSourcesJar()
            // Maven Central takes a library with its sources and its documentation (AGP's Dokka).
            withJavadocJar()
        }
    }
}

kotlin {
    // The JVM target alone, as compileOptions sets Java's, rather than a toolchain: a toolchain
    // of that version would have to be installed (Android Studio bundles a newer JDK only).
    // Apps still on Kotlin 2.0 read the library's classes: compiled for language and API 2.0,
    // against the standard library 2.0.21, which the POM then names.
    coreLibrariesVersion = libs.versions.kotlinStdlib.get()
    compilerOptions {
        jvmTarget.set(org.jetbrains.kotlin.gradle.dsl.JvmTarget.fromTarget(libs.versions.jvmTarget.get()))
        languageVersion.set(org.jetbrains.kotlin.gradle.dsl.KotlinVersion.KOTLIN_2_0)
        apiVersion.set(org.jetbrains.kotlin.gradle.dsl.KotlinVersion.KOTLIN_2_0)
        // Members with a body are Java default methods: Java passes a lambda for InitListener.
        jvmDefault.set(org.jetbrains.kotlin.gradle.dsl.JvmDefaultMode.NO_COMPATIBILITY)
    }
}

val robolectricRuntime: Configuration by configurations.creating

dependencies {
    implementation(libs.kotlinx.coroutines.core)
    implementation(libs.installreferrer)
    implementation(libs.play.services.ads.identifier)

    testImplementation(libs.junit)
    testImplementation(libs.robolectric)
    robolectricRuntime(libs.robolectric.android.all)
}

publishing {
    publications {
        register<MavenPublication>("release") {
            groupId = "com.service"
            artifactId = "attribution-sdk"
            version = libs.versions.sdk.get()
            afterEvaluate { from(components["release"]) }
            pom {
                name.set("Attribution SDK for Android")
                description.set("Install and in-app event attribution for Android apps.")
                licenses {
                    license {
                        name.set("The Apache License, Version 2.0")
                        url.set("https://www.apache.org/licenses/LICENSE-2.0.txt")
                    }
                }
            }
        }
    }
    repositories {
        // ./gradlew publishReleasePublicationToLocalRepository: the same folder test.sh fills.
        maven {
            name = "local"
            url = uri(layout.buildDirectory.dir("repo"))
        }
    }
}
