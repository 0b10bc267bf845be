package com.service.attribution.flutter

import org.robolectric.internal.dependency.DependencyResolver
import org.robolectric.pluginapi.Sdk
import org.robolectric.plugins.DefaultSdkProvider
import java.util.Properties
import java.util.TreeMap
import javax.annotation.Priority
import javax.inject.Inject

/**
 * Robolectric's SDKs narrowed to the one of robolectric.properties (the compileSdk): Robolectric
 * reads the framework's resources from its newest known SDK, whose android-all test.sh does not
 * fetch; a Gradle build would hand it the compileSdk's.
 */
@Priority(1)
class CompileSdkProvider @Inject constructor(resolver: DependencyResolver) : DefaultSdkProvider(resolver) {
    override fun populateSdks(knownSdks: TreeMap<Int, Sdk>) {
        super.populateSdks(knownSdks)
        val properties = Properties()
        javaClass.getResourceAsStream("/robolectric.properties")!!.use(properties::load)
        val sdk = properties.getProperty("sdk").toInt()
        knownSdks.keys.retainAll(setOf(sdk))
    }
}
