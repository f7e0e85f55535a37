package chat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/knowledge"
)

// smallWindowDocs are a Chinese and an English policy whose sections are
// long paragraphs, so that their chunks come close to the chunker's 400
// tokens: larger than what a 2,048-token window left evidence before the
// compact rules and the trimmed top chunk (issue 16, item 3).
var smallWindowDocs = []knowledge.DocumentInput{
	{
		Title:     "会议室预订规定",
		SourceURI: "https://help.example.com/zh/meeting-rooms",
		Content: "# 会议室预订规定\n\n" +
			"## 预订方式与时长\n\n" +
			"员工通过办公系统的会议室页面预订会议室，每次预订最长四小时，超过四小时的会议需要提前三个工作日向行政部提交书面申请，并说明会议的主题、参会人数和设备需求。" +
			"普通会议室最多可以提前十四天预订，大型报告厅最多可以提前三十天预订，预订成功后系统会向预订人和所有参会人发送邮件通知。" +
			"同一员工在同一时间段只能保留一个预订，重复的预订会被系统自动取消，取消的原因会写在通知邮件里。" +
			"预订人需要在会议开始前十五分钟内在会议室门口的平板上签到，未签到的预订会在开始后十五分钟自动释放，释放后的会议室可以被其他员工立即预订。" +
			"连续三次未签到的员工，其预订权限会被暂停七天，暂停期间只能由部门助理代为预订，恢复后系统会发送提醒。" +
			"跨部门的会议由发起部门负责预订，并在预订备注中写明合作部门，方便行政部统计会议室的使用情况和安排保洁。\n\n" +
			"## 设备与费用\n\n" +
			"每间会议室都配有投影仪、视频会议终端和白板，报告厅另外配有扩音系统和同声传译设备，使用同声传译设备需要在预订时单独勾选并注明语种。" +
			"设备出现故障时，请拨打内线电话八八六六联系信息技术部，工作时间内十五分钟内会有工程师到场，非工作时间请在办公系统里提交报修工单。" +
			"会议室的使用本身不收费，但外部客户参加的会议如需茶歇，费用按每人每次三十元计入预订部门的成本中心，超过五十人的茶歇需要提前两天下单。" +
			"会议结束后，预订人负责关闭投影仪和空调，擦干净白板，并把桌椅恢复原样，检查会议室内没有遗留的物品和文件。" +
			"遗留在会议室的物品由前台保管三十天，期满无人认领的物品会按照公司的资产管理规定统一处理，贵重物品会登记后交给安全部。\n\n" +
			"## 违规处理\n\n" +
			"占用会议室却不开会、私下转让预订或者在会议室内进行与工作无关的活动，都属于违规使用会议室，行政部会记录在案并通知违规员工的直属主管。" +
			"第一次违规给予书面提醒，第二次违规暂停预订权限三十天，第三次违规取消当年的预订权限，并在部门的年度考核中扣除相应的分数。" +
			"对处理结果有异议的员工，可以在收到通知后的五个工作日内通过办公系统提交申诉，行政部会在十个工作日内给出书面答复，答复意见为最终结果。" +
			"紧急情况下，例如突发的客户投诉或者系统故障处理，员工可以先使用空闲的会议室，再在两小时内补办预订手续，补办时需要说明紧急事由。",
	},
	{
		Title:     "Meeting Room Booking Policy",
		SourceURI: "https://help.example.com/en/meeting-rooms",
		Content: "# Meeting Room Booking Policy\n\n" +
			"## Booking and duration\n\n" +
			"Employees book meeting rooms on the meeting room page of the office portal, and a single booking may last at most four hours. " +
			"Meetings longer than four hours need a written request to the facilities team three working days in advance, stating the topic, the number of attendees and the equipment needed. " +
			"Ordinary meeting rooms can be booked up to fourteen days ahead and the auditorium up to thirty days ahead; once a booking succeeds, the portal emails the organiser and every attendee. " +
			"An employee may hold only one booking for the same time slot, and the portal cancels duplicate bookings automatically, giving the reason in the notification email. " +
			"The organiser must check in on the tablet at the door within fifteen minutes before the meeting starts; a booking without a check-in is released fifteen minutes after the start, and anyone may book the released room at once. " +
			"Employees who miss the check-in three times in a row lose the right to book for seven days, during which only their department assistant can book for them, and the portal sends a reminder when the right returns. " +
			"Meetings across departments are booked by the department that calls them, which names its partner departments in the booking notes so that facilities can track how rooms are used and plan the cleaning.\n\n" +
			"## Equipment and costs\n\n" +
			"Every meeting room has a projector, a video conferencing terminal and a whiteboard; the auditorium also has a sound system and simultaneous interpretation equipment, which must be selected separately when booking, with the languages needed. " +
			"When equipment fails, call the IT desk on extension 8866: during working hours an engineer arrives within fifteen minutes, and outside working hours you file a repair ticket in the office portal. " +
			"Using a room is free, but refreshments for meetings with external guests cost thirty yuan per person per meeting, charged to the booking department's cost centre, and refreshments for more than fifty people must be ordered two days ahead. " +
			"After the meeting the organiser switches off the projector and the air conditioning, wipes the whiteboard, puts the tables and chairs back, and checks that no belongings or papers were left behind. " +
			"Items left in a meeting room are kept at the front desk for thirty days; unclaimed items are then handled under the company's asset rules, and valuables are logged and handed to the security team.\n\n" +
			"## Violations\n\n" +
			"Holding a room without meeting in it, passing a booking on to someone else, or using a room for activities unrelated to work are violations; facilities records them and informs the employee's line manager. " +
			"A first violation brings a written reminder, a second one suspends the right to book for thirty days, and a third one removes it for the rest of the year and costs points in the department's annual review. " +
			"Employees who disagree with a decision may appeal in the office portal within five working days of the notice, and facilities answers in writing within ten working days; that answer is final. " +
			"In an emergency, such as an urgent customer complaint or an outage, employees may use a free room first and book it within two hours afterwards, stating the reason for the emergency.",
	},
}

// Questions about smallWindowDocs, each answered by one of their chunks.
var (
	smallWindowQuestionsZH = []string{
		"会议室每次最多可以预订多长时间？", "会议室的设备坏了应该联系谁？", "违规使用会议室会有什么处理？",
		"会议室未签到会怎么样？", "外部客户参加会议的茶歇怎么收费？", "对违规处理有异议怎么申诉？",
		"报告厅可以提前多久预订？", "会议室里遗留的物品怎么处理？",
	}
	smallWindowQuestionsEN = []string{
		"How long can a single meeting room booking last?", "Who do I call when meeting room equipment fails?",
		"What happens after a meeting room violation?", "What happens when the organiser does not check in?",
		"How much do refreshments for external guests cost?", "How do I appeal a violation decision?",
		"How far ahead can the auditorium be booked?", "What happens to items left in a meeting room?",
	}
)

// ingestSmallWindowDocs adds smallWindowDocs to the environment's
// knowledge base, as an admin.
func (e *env) ingestSmallWindowDocs(t *testing.T) {
	t.Helper()
	for _, d := range smallWindowDocs {
		_, err := e.svc.Ingest(as(admin), e.kb, d)
		require.NoError(t, err)
	}
}
