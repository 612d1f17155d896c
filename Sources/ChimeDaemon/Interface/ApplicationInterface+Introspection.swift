extension ApplicationInterface {
    /// The introspection data, as installed in /usr/share/dbus-1/interfaces (dbus/org.chime.Notifications1.xml).
    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <!-- chime's application interface: applications schedule their own notifications through chimed (org.chime.Notifications1(5)). -->
        <node>
          <interface name="org.chime.Notifications1">
            <!-- Schedules (or replaces) APP_ID's request ID; returns its next fire in microseconds since the epoch, -1 when nothing is ahead (then nothing is kept). -->
            <method name="Add">
              <arg name="app_id" type="s" direction="in"/>
              <arg name="id" type="s" direction="in"/>
              <arg name="content" type="a{sv}" direction="in"/>
              <arg name="trigger" type="a{sv}" direction="in"/>
              <arg name="next_usec" type="x" direction="out"/>
            </method>
            <!-- APP_ID's requests with something ahead: id, content, trigger, next fire. -->
            <method name="GetPending">
              <arg name="app_id" type="s" direction="in"/>
              <arg name="requests" type="a(sa{sv}a{sv}x)" direction="out"/>
            </method>
            <method name="RemovePending">
              <arg name="app_id" type="s" direction="in"/>
              <arg name="ids" type="as" direction="in"/>
            </method>
            <method name="RemoveAllPending">
              <arg name="app_id" type="s" direction="in"/>
            </method>
            <!-- APP_ID's notifications the desktop still shows: id, content, the occurrence's time. -->
            <method name="GetDelivered">
              <arg name="app_id" type="s" direction="in"/>
              <arg name="notifications" type="a(sa{sv}x)" direction="out"/>
            </method>
            <!-- Closes the bubbles of IDS (unknown ids are ignored). -->
            <method name="RemoveDelivered">
              <arg name="app_id" type="s" direction="in"/>
              <arg name="ids" type="as" direction="in"/>
            </method>
            <method name="RemoveAllDelivered">
              <arg name="app_id" type="s" direction="in"/>
            </method>
            <method name="Acknowledge">
              <arg name="app_id" type="s" direction="in"/>
              <arg name="ids" type="as" direction="in"/>
            </method>
            <!-- The application's badge: the number on its launcher entry (application://APP_ID.desktop). -->
            <method name="SetBadge">
              <arg name="app_id" type="s" direction="in"/>
              <arg name="count" type="u" direction="in"/>
            </method>
            <method name="GetBadge">
              <arg name="app_id" type="s" direction="in"/>
              <arg name="count" type="u" direction="out"/>
            </method>
            <!-- What may be presented (alert, sound, badge: b), the backends a request without Deliver= goes to (as), and the desktop's notification server (desktop: s). -->
            <method name="GetSettings">
              <arg name="app_id" type="s" direction="in"/>
              <arg name="settings" type="a{sv}" direction="out"/>
            </method>
            <!-- A request was handed to its backends; fire_usec is the occurrence's time. -->
            <signal name="Delivered">
              <arg name="app_id" type="s"/>
              <arg name="id" type="s"/>
              <arg name="fire_usec" type="x"/>
            </signal>
            <!-- The user chose an action on the bubble ("default" for the bubble itself); info is the request's Info=. -->
            <signal name="ActionInvoked">
              <arg name="app_id" type="s"/>
              <arg name="id" type="s"/>
              <arg name="action" type="s"/>
              <arg name="info" type="a{ss}"/>
            </signal>
            <!-- The user closed the bubble. -->
            <signal name="Dismissed">
              <arg name="app_id" type="s"/>
              <arg name="id" type="s"/>
            </signal>
          </interface>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg name="xml_data" type="s" direction="out"/>
            </method>
          </interface>
        </node>

        """
}
